"""Torch-free embedder: `tokenizers` + onnxruntime + numpy.

Reproduces sentence-transformers all-MiniLM-L6-v2 (max_seq_length=256, mean pooling,
L2 normalise).  NOTE: the shipped tokenizer.json carries truncation=128 / padding=Fixed(128);
sentence-transformers overrides that with max_seq_length=256 and dynamic padding, so we
must do the same or long texts diverge.
"""
import os
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MAX_SEQ = 256

class OrtEmbedder:
    def __init__(self, model_dir, onnx_path, threads=None, arena=False):
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tok.enable_truncation(max_length=MAX_SEQ)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to longest in batch
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads or 0   # 0 = ORT default (#physical cores)
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.enable_cpu_mem_arena = arena          # arena off: lower steady RSS
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(onnx_path, sess_options=so, providers=["CPUExecutionProvider"])

    def _run(self, texts):
        encs = self.tok.encode_batch(texts)
        ids = np.asarray([e.ids for e in encs], dtype=np.int64)
        am = np.asarray([e.attention_mask for e in encs], dtype=np.int64)
        tt = np.zeros_like(ids)
        return self.sess.run(None, {"input_ids": ids, "attention_mask": am, "token_type_ids": tt})[0]

    def encode(self, texts, batch_size=32):
        if isinstance(texts, str): texts = [texts]
        if not texts: return np.zeros((0, 384), dtype=np.float32)
        # sort by length (like sentence-transformers) so batches pad less
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for s in range(0, len(texts), batch_size):
            idx = order[s:s + batch_size]
            out[idx] = self._run([texts[i] for i in idx])
        return out
