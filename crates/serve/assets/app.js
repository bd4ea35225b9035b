// vera serve: the little script of the review page. It starts checks, follows their
// progress (server-sent events), cancels them, and filters the requirement table.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf"]').content;
  const job = document.getElementById("job");
  const cancel = document.getElementById("cancel");

  function follow(id) {
    if (!job) return;
    if (job.dataset.state !== "queued") job.dataset.state = "running";
    job.dataset.job = id;
    const status = job.querySelector(".job-status");
    const log = job.querySelector(".job-log");
    document.querySelectorAll("button.run").forEach((b) => (b.disabled = true));
    if (cancel) cancel.hidden = false;
    const es = new EventSource("/jobs/" + id + "/events");
    const show = (v) => {
      job.dataset.state = v.state;
      if (v.state === "queued") {
        const n = v.ahead || 0;
        status.textContent = v.kind + " queued: " + n + " check" + (n === 1 ? "" : "s") +
          " ahead (at most " + v.limit + " run at once)";
      } else {
        status.textContent = v.kind + " " + v.state + " — " + v.seconds.toFixed(1) + " s";
      }
      log.textContent = v.log.join("\n");
      log.scrollTop = log.scrollHeight;
    };
    es.addEventListener("progress", (e) => show(JSON.parse(e.data)));
    es.addEventListener("end", (e) => {
      const v = JSON.parse(e.data);
      show(v);
      es.close();
      job.dataset.state = v.state;
      if (cancel) cancel.hidden = true;
      document.querySelectorAll("button.run").forEach((b) => (b.disabled = false));
      if (v.state === "done") {
        // The page shows the new result; keep the person's place.
        location.reload();
      }
    });
    es.onerror = () => {
      es.close();
      fetch("/jobs/" + id).then((r) => r.json()).then((v) => {
        show(v);
        if (v.state !== "running" && v.state !== "queued") {
          job.dataset.state = v.state;
          if (v.state === "done") location.reload();
        }
      });
    };
  }

  document.querySelectorAll("button.run").forEach((b) =>
    b.addEventListener("click", () => {
      const body = new URLSearchParams({ kind: b.dataset.kind, path: b.dataset.path });
      b.disabled = true;
      fetch("/jobs", { method: "POST", headers: { "x-vera-csrf": csrf }, body })
        .then((r) => (r.ok ? r.json() : r.text().then((t) => Promise.reject(t))))
        .then((j) => follow(j.id))
        .catch((e) => {
          b.disabled = false;
          job.dataset.state = "failed";
          job.querySelector(".job-status").textContent = "could not start: " + e;
        });
    })
  );
  if (cancel)
    cancel.addEventListener("click", () => {
      const id = job.dataset.job;
      if (id) fetch("/jobs/" + id + "/cancel", { method: "POST", headers: { "x-vera-csrf": csrf } });
    });
  if (job && (job.dataset.state === "running" || job.dataset.state === "queued") && job.dataset.job)
    follow(job.dataset.job);

  const filter = document.getElementById("filter");
  const flag = document.getElementById("flag-filter");
  function apply() {
    const q = (filter.value || "").toLowerCase();
    const f = flag.value;
    document.querySelectorAll("table#requirements tbody tr").forEach((tr) => {
      const text = tr.textContent.toLowerCase();
      const ok = (!q || text.includes(q)) && (!f || tr.classList.contains(f));
      tr.classList.toggle("hidden", !ok);
    });
  }
  if (filter && flag) {
    filter.addEventListener("input", apply);
    flag.addEventListener("change", apply);
  }
})();
