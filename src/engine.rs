//! Owns position, TT, evaluator and search threads; `go` and `stop` never block.
