//! UCI text at the edge: parse lines into commands, format search events.
