"""The guards: what must not be stored as written, and what must not be obeyed when recalled.

redact (with secret_formats and secret_assignments) replaces secrets with markers before anything is
stored; instructions (with instruction_phrases) flags memory text shaped like instructions to the
assistant, shown with a warning at recall. lazyre compiles their many patterns on first use, so a
process that never redacts never pays for them. Plain rules over text: nothing here imports the
store, search or the service.
"""
