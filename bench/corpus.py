"""Synthetic but varied developer memories for benchmarks (no data downloads)."""

from __future__ import annotations

import random

SUBJECTS = ["the billing service", "the auth gateway", "our CI pipeline", "the search index", "the mobile app",
            "the data warehouse", "the payments worker", "the admin dashboard", "the CLI", "the ingestion job",
            "the notification service", "the feature-flag system", "the GraphQL API", "the cron scheduler"]
VERBS = ["uses", "depends on", "was migrated to", "should avoid", "is deployed with", "caches results in",
         "logs to", "is tested with", "reads its config from", "was rewritten in"]
OBJECTS = ["PostgreSQL 16", "Redis", "Kafka", "SQLite", "Terraform", "GitHub Actions", "pytest", "Go 1.23",
           "Rust", "TypeScript", "S3", "OpenTelemetry", "Celery", "Dramatiq", "nginx", "Kubernetes", "Docker Compose",
           "uv", "poetry", "ruff", "mypy", "Sentry", "Grafana", "Prometheus", "a YAML file in config/app.yaml"]
REASONS = ["because latency matters", "after the outage in March", "to cut costs", "per Alice's review",
           "since the old one was unmaintained", "for row-level security", "to simplify deploys", "",
           "because Bob prefers it", "to meet the SOC 2 audit", "as decided in the Q3 planning"]
PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana"]
PREFS = ["prefers tabs over spaces", "wants small pull requests", "likes type hints everywhere",
         "asks for tests before refactors", "dislikes ORMs", "prefers squash merges", "reviews on Mondays"]
FILES = ["server/store.py", "src/api/routes.ts", "cmd/worker/main.go", "infra/main.tf", "app/models/user.rb",
         "lib/parseConfig.js", "tests/test_billing.py", "docs/ADR-012.md"]


def memories(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.55:
            text = f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(REASONS)}".strip() + "."
        elif roll < 0.75:
            text = f"{rng.choice(PEOPLE)} {rng.choice(PREFS)} when working on {rng.choice(SUBJECTS)}."
        else:
            text = (f"The function handle_{rng.choice(['retry', 'auth', 'upload', 'refund'])}_{i % 97} in "
                    f"{rng.choice(FILES)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}.")
        # a serial keeps every memory distinct, as real notes are
        out.append(f"{text} (note {i})")
    return out


QUERIES = ["which database does billing use?", "what did we decide about the message queue?",
           "how do we deploy the auth gateway", "who prefers small pull requests", "where is parseConfig",
           "what does the CI pipeline test with", "Kafka", "why did we move to Dramatiq", "observability stack",
           "handle_refund", "Terraform state", "config file location"]
