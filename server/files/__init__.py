"""The human-editable memory files: the folder (`folder`), the daily log's format (`dailylog`),
day names (`days`), Markdown units (`markdown`), change detection (`changes`), safe writes
(`atomic`), keeping them searchable (`index`) and promotion into MEMORY.md (`promote`)."""
