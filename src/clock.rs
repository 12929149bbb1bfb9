//! Placeholder: being written (clocks).
