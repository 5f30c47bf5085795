"""Pure numpy BERT forward pass for all-MiniLM-L6-v2 (no torch, no onnxruntime).

Weights are read straight from the shipped model.safetensors with np.memmap (the format is
an 8-byte little-endian header length + JSON header + raw little-endian tensors), so the
90 MB of weights are file-backed pages shared between processes via the page cache.
"""
import json, os, struct
import numpy as np
from tokenizers import Tokenizer

MAX_SEQ = 256
_DT = {"F32": np.float32, "I64": np.int64}

def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    out = {}
    for k, v in header.items():
        if k == "__metadata__": continue
        s, e = v["data_offsets"]
        out[k] = mm[8 + n + s: 8 + n + e].view(_DT[v["dtype"]]).reshape(v["shape"])
    return out

def _ln(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b

# exact (erf) GELU; numpy has no erf, use a float64 rational approximation (|err| < 1.2e-7)
def _erf(x):
    x = x.astype(np.float64)
    t = 1.0 / (1.0 + 0.5 * np.abs(x))
    y = 1 - t * np.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
        t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
        t * (-0.82215223 + t * 0.17087277)))))))))
    return np.where(x >= 0, y, -y)

def _gelu(x):
    return (0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))).astype(np.float32)

class NumpyEmbedder:
    def __init__(self, model_dir, n_layers=6, n_heads=12):
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tok.enable_truncation(max_length=MAX_SEQ)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self.w = load_safetensors(os.path.join(model_dir, "model.safetensors"))
        self.L, self.H = n_layers, n_heads
        # pre-transpose linear weights once (keeps them contiguous for BLAS); small: ~21 MB anon
        self.lin = {}
        for i in range(n_layers):
            p = f"encoder.layer.{i}."
            q, k, v = (self.w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value"))
            self.lin[i] = dict(
                qkv_w=np.ascontiguousarray(np.concatenate([q, k, v], 0).T),
                qkv_b=np.concatenate([self.w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]),
                o_w=np.ascontiguousarray(self.w[p + "attention.output.dense.weight"].T),
                i_w=np.ascontiguousarray(self.w[p + "intermediate.dense.weight"].T),
                f_w=np.ascontiguousarray(self.w[p + "output.dense.weight"].T))

    def _forward(self, ids, am):
        w = self.w; B, T = ids.shape; D = 384; H = self.H; hd = D // H
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T][None] \
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = _ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - am[:, None, None, :].astype(np.float32)) * np.finfo(np.float32).min)
        for i in range(self.L):
            p = f"encoder.layer.{i}."; l = self.lin[i]
            qkv = x @ l["qkv_w"] + l["qkv_b"]
            qkv = qkv.reshape(B, T, 3, H, hd).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            s = (q @ k.transpose(0, 1, 3, 2)) / np.sqrt(hd) + bias
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
            x = _ln(ctx @ l["o_w"] + w[p + "attention.output.dense.bias"] + x,
                    w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = _gelu(x @ l["i_w"] + w[p + "intermediate.dense.bias"])
            x = _ln(h @ l["f_w"] + w[p + "output.dense.bias"] + x,
                    w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        m = am[..., None].astype(np.float32)
        e = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)

    def encode(self, texts, batch_size=32):
        if isinstance(texts, str): texts = [texts]
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for s in range(0, len(texts), batch_size):
            idx = order[s:s + batch_size]
            encs = self.tok.encode_batch([texts[i] for i in idx])
            ids = np.asarray([e.ids for e in encs], dtype=np.int64)
            am = np.asarray([e.attention_mask for e in encs], dtype=np.int64)
            out[idx] = self._forward(ids, am)
        return out
