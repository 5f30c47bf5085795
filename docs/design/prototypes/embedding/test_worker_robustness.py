"""Failure drills for the shared worker (run with the lean venv).
 1. two clients start concurrently -> exactly one worker
 2. a client is SIGKILLed mid-session -> worker keeps serving the other
 3. worker SIGKILLed -> next encode respawns it transparently (same results)
 4. worker cannot start (broken backend) -> client falls back to in-process model
 5. stale socket file + stale lock-file contents from a dead worker -> new worker starts fine
"""
import json, os, shutil, signal, subprocess, sys, time
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
import numpy as np, embed_worker as W, embed_client as C
data = os.path.join(HERE, "data_robust"); shutil.rmtree(data, ignore_errors=True); os.makedirs(data)
ok = 0; fail = 0
def check(name, cond):
    global ok, fail
    print(("PASS " if cond else "FAIL ") + name, flush=True); ok += cond; fail += (not cond)
def wpid(): return int(open(W.paths(data)[1]).read().split()[0])
def alive(pid):  # a zombie (exited, not yet reaped by its parent) counts as dead
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(l.startswith("State:") and "Z" in l.split()[1] for l in f)
    except FileNotFoundError: return False

# 1. concurrent start: two client processes at once
code = f"import sys; sys.path.insert(0,{HERE!r}); import embed_client as C; c=C.EmbedClient({data!r}); v=c.encode(['x']); print(c.spawns, c.fallbacks, flush=True); sys.stdin.read()"
ps = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(2)]
outs = [p.stdout.readline().split() for p in ps]
workers = subprocess.run(["pgrep", "-f", f"embed_worker.py {data}"], capture_output=True, text=True).stdout.split()
check(f"concurrent start -> one worker (found {len(workers)}), no fallback {outs}", len(workers) == 1 and all(o[1] == "0" for o in outs))
# 2. kill one client hard; the other keeps working through the same worker
pid0 = wpid(); ps[0].kill(); ps[0].wait()
c = C.EmbedClient(data); ref = c.encode(["hello world", "memory"])
check("worker survives a SIGKILLed client", alive(pid0) and wpid() == pid0 and c.fallbacks == 0)
ps[1].stdin.close(); ps[1].wait()
# 3. SIGKILL the worker; the next call respawns it
os.kill(pid0, signal.SIGKILL); time.sleep(0.2)
t = time.perf_counter(); v = c.encode(["hello world", "memory"]); dt = time.perf_counter() - t
check(f"worker SIGKILL -> respawned in {dt:.1f}s, pid {pid0}->{wpid()}, identical output", wpid() != pid0 and c.fallbacks == 0 and np.array_equal(v, ref))
# 5. (prepared) leave stale socket + stale pid in lock file by SIGKILL again, then new client
pid1 = wpid(); os.kill(pid1, signal.SIGKILL); time.sleep(0.2)
check("stale socket file left behind", os.path.exists(W.paths(data)[2]))
c2 = C.EmbedClient(data); v2 = c2.encode(["hello world", "memory"])
check("stale socket/lock -> fresh worker starts", wpid() != pid1 and c2.fallbacks == 0 and np.allclose(v2, ref))
os.kill(wpid(), signal.SIGTERM); time.sleep(0.3)
# 4. worker cannot start -> in-process fallback
c3 = C.EmbedClient(data, start_timeout=5.0, worker_args=["--onnx", "/nonexistent.onnx"])
t = time.perf_counter(); v3 = c3.encode(["hello world", "memory"]); dt = time.perf_counter() - t
check(f"broken worker -> in-process fallback after {dt:.1f}s", c3.fallbacks == 1 and np.allclose(v3, ref))
# 6. idle exit
d6 = os.path.join(HERE, "data_idle"); shutil.rmtree(d6, ignore_errors=True)
c6 = C.EmbedClient(d6, worker_args=["--idle", "2"]); c6.encode(["x"]); p6 = int(open(W.paths(d6)[1]).read().split()[0])
c6.conn.close(); time.sleep(8)
check("worker exits after idle timeout with no clients", not alive(p6))
print(f"{ok} passed, {fail} failed")
