//! Placeholder: being written (snowflake generator).
