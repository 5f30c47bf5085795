"""Shared helpers: deterministic test texts, RSS readers, timing."""
import os, random, time

def rss_mb(pid="self"):
    """Return (VmRSS, VmHWM) in MB from /proc/<pid>/status."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:", "RssAnon:", "RssFile:")):
                k, v, _ = line.split()
                vals[k[:-1]] = int(v) / 1024.0
    return vals

def pss_mb(pid="self"):
    """Proportional set size (shared pages split between processes)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024.0
    except FileNotFoundError:
        return float("nan")

_WORDS = ("memory project meeting deadline python server vector search embedding user "
          "prefers dark mode the a of to and in is for on with that config database "
          "release bug fix customer invoice travel Berlin Tuesday coffee notes remember "
          "assistant window process socket model weights token cache latency index "
          "important decision architecture review budget quarterly report design api").split()

def make_texts(n=2000, approx_chars=200, seed=1234):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = []
        while sum(len(w) + 1 for w in words) < approx_chars:
            words.append(rng.choice(_WORDS))
        s = " ".join(words)
        out.append(f"Note {i}: " + s[: approx_chars - 10].capitalize() + ".")
    return out

def short_texts(n, seed=7):
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12))) for _ in range(n)]

def fmt(d):
    return " ".join(f"{k}={v:.1f}" for k, v in d.items())
