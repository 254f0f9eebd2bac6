//! Logging that compiles to defmt, to the `log` crate, or to nothing.
//!
//! Format strings must stay within what both back ends accept: `{}` and
//! `{:#x}` on integers, `bool` and `&str`.

macro_rules! bg_log {
    ($defmt:ident, $log:ident, $($arg:tt)*) => {{
        #[cfg(feature = "defmt")]
        defmt::$defmt!($($arg)*);
        #[cfg(feature = "log")]
        log::$log!($($arg)*);
        #[cfg(not(any(feature = "defmt", feature = "log")))]
        {
            // Type-check the arguments so that every build sees the same code.
            let _ = ::core::format_args!($($arg)*);
        }
    }};
}

#[allow(unused_macros)]
macro_rules! debug { ($($arg:tt)*) => { bg_log!(debug, debug, $($arg)*) }; }
macro_rules! info { ($($arg:tt)*) => { bg_log!(info, info, $($arg)*) }; }
#[allow(unused_macros)]
macro_rules! warn { ($($arg:tt)*) => { bg_log!(warn, warn, $($arg)*) }; }
