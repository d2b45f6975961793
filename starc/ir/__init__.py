"""The typed intermediate representation, semantic analysis and the DSL pretty-printer."""
