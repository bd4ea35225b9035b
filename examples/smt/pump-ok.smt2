; The same limits without the bolus scenario are satisfiable: vera prints a model it has
; re-evaluated against every assertion.
(set-logic QF_LRA)
(declare-const rate Real)
(declare-const hourly_limit Real)
(declare-const bolus Bool)
(assert (<= rate hourly_limit))
(assert (<= hourly_limit 120.0))
(assert (=> bolus (>= rate 150.0)))
(assert (> rate 0.5))
(check-sat)
(get-value ((- hourly_limit rate)))
