"""Curation: curate_memory's actions (`curator`), the JSON archive format (`archive`) and
extractive compression by age (`compress`)."""
