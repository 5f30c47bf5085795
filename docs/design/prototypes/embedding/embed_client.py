"""Client side used inside each memvault server process (prototype).

encode(texts) -> float32 [n,384].  Order of attempts:
  1. connected worker (persistent connection);
  2. if none: spawn the worker (only if its lock is free), wait up to start_timeout for it;
  3. if the worker cannot be reached/started or dies mid-request twice: load the model
     in-process (fallback) and keep using it for this process's lifetime.
Imports here are light (stdlib + numpy); the model runtime is only imported on fallback.
"""
import fcntl, json, os, subprocess, sys, time
from multiprocessing.connection import Client
import numpy as np
import embed_worker as W

class EmbedClient:
    def __init__(self, data_dir, backend="ort", start_timeout=60.0, worker_args=()):
        self.data_dir, self.backend, self.start_timeout = data_dir, backend, start_timeout
        self.worker_args = list(worker_args)
        self.conn = None; self.local = None; self.fallbacks = 0; self.spawns = 0

    def _connect(self):
        _, _, sockp, _ = W.paths(self.data_dir)
        self.conn = Client(sockp, family="AF_UNIX", authkey=W.get_authkey(self.data_dir))

    def _worker_alive(self):
        _, lockp, _, _ = W.paths(self.data_dir)
        os.makedirs(os.path.dirname(lockp), exist_ok=True)
        with open(lockp, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
            return False

    def _spawn(self):
        self.spawns += 1
        log = open(os.path.join(W.paths(self.data_dir)[0], "worker.log"), "ab")
        if getattr(self, "_proc", None) is not None:
            self._proc.poll()      # reap a previous worker we spawned (avoid a zombie)
        self._proc = subprocess.Popen([sys.executable, W.__file__, self.data_dir, "--backend", self.backend, *self.worker_args],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True, close_fds=True)   # detached: outlives this server

    def _ensure(self):
        if self.conn is not None: return True
        try:
            self._connect(); return True
        except (FileNotFoundError, ConnectionRefusedError, OSError):
            pass
        # No "is a worker alive?" probe: a probe that takes the flock, even briefly, could make a
        # starting worker think another one owns the lock. Just spawn; a duplicate worker
        # fails the non-blocking flock and exits at once (before importing any model code).
        self._spawn()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            try:
                self._connect(); return True
            except (FileNotFoundError, ConnectionRefusedError, OSError):
                time.sleep(0.05)
        return False

    def _local(self):
        if self.local is None:
            self.fallbacks += 1
            self.local = W.make_backend(self.backend)
        return self.local

    def encode(self, texts, batch_size=32):
        if self.local is not None:
            return self.local(texts, batch_size=batch_size)
        for attempt in range(2):
            if not self._ensure(): break
            try:
                self.conn.send_bytes(json.dumps({"texts": texts, "batch_size": batch_size}).encode())
                r = self.conn.recv_bytes()
            except (EOFError, OSError, BrokenPipeError):
                self.conn = None; continue                  # worker died: respawn once
            if r[:2] == b"OK":
                return np.frombuffer(r[2:], dtype="<f4").reshape(len(texts), 384)
            raise RuntimeError(r[2:].decode())
        return self._local()(texts, batch_size=batch_size)  # worker unavailable: in-process
