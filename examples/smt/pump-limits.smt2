; An infusion pump's dose limits, written directly in SMT-LIB.
; Three requirements clash when a clinician programs a high rate: vera reports the
; unsat core as the lines of the assertions involved.
(set-logic QF_LRA)
(declare-const rate Real)          ; programmed infusion rate, mL/h
(declare-const hourly_limit Real)  ; hard hourly limit from the drug library, mL/h
(declare-const bolus Bool)         ; a bolus is being delivered

; R1: the rate never exceeds the drug library's hourly limit.
(assert (<= rate hourly_limit))
; R2: the drug library caps the hourly limit at 120 mL/h.
(assert (<= hourly_limit 120.0))
; R3: during a bolus the pump runs at least 150 mL/h.
(assert (=> bolus (>= rate 150.0)))
; Scenario: a bolus is requested.
(assert bolus)
(check-sat)
