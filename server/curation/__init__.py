"""Curation: curate_memory's actions and the tools they use.

`curator` holds the table of actions and runs them (preview, apply, curation log);
the actions live by concern in `linking` (supersede, dedupe), `compaction` (compress,
restore), `lifecycle` (pin, forget-list, forget-matching, purge), `promotion` (into
MEMORY.md) and `reports` (retention, stats), over `plan` (Plan, Outcome, shared reads)
and `scoring` (the retention score). `archive` is the JSON archive format, `compress`
the extractive compression by age."""
