//! On/off switches read from the environment (`CODER_CHECKPOINTS`, `CODER_AUTODIAG`): one rule for
//! what counts as "off", so every switch reads the same. Shared by the daemon and its clients.

/// Whether a switch's value says off: `off`, `0`, `false` or `no`, in any case, spaces around
/// ignored.
pub fn is_off(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "off" | "0" | "false" | "no"
    )
}

/// Whether the environment variable `name` is set to a value that says off.
pub fn var_is_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| is_off(&value))
}
