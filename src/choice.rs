//! Choice enums from one table of names: a setting the user picks by name (`Backend`,
//! `Precision`, `Device`, …) is declared once with its names, and its `FromStr` (any case,
//! trimmed), `Display`, the message that refuses an unknown name by listing the choices, and
//! the list a UCI combo box offers (`NAMES`) all come from that table, so they cannot drift
//! apart.
//!
//! ```ignore
//! choice_enum! {
//!     /// Doc of the enum.
//!     #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
//!     pub enum Encoder("encoder") {
//!         #[default]
//!         Auto = "auto",
//!         Dense = "dense",
//!     }
//! }
//! ```
//! The string after the name says what a value is, for the refusal: `unknown encoder 'x';
//! use auto or dense`.

/// Defines the enum and its names; see the module's note.
macro_rules! choice_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every name, in the order the choices are offered.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The name a user writes for `self`.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The value named `text` (any case, trimmed), or a refusal that lists the names.
            pub fn from_name(text: &str) -> Result<Self, String> {
                let text = text.trim();
                $(
                    if text.eq_ignore_ascii_case($text) {
                        return Ok($name::$variant);
                    }
                )+
                Err(format!(
                    "unknown {} '{}'; use {}",
                    $what,
                    $crate::choice::excerpt(text),
                    $crate::choice::listed(Self::NAMES)
                ))
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                Self::from_name(text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// `a, b or c`.
pub fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// At most 40 characters of what the user wrote, control characters shown as `?`: a refusal
/// quotes it, and a GUI or a fuzzer may send anything.
pub fn excerpt(text: &str) -> String {
    text.chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    choice_enum! {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        enum Colour("colour") {
            #[default]
            Red = "red",
            DarkBlue = "dark-blue",
            Green = "green",
        }
    }

    #[test]
    fn one_table_gives_the_names_both_ways_and_the_refusal() {
        assert_eq!(Colour::NAMES, ["red", "dark-blue", "green"]);
        for (colour, name) in [(Colour::Red, "red"), (Colour::DarkBlue, "dark-blue")] {
            assert_eq!(colour.to_string(), name);
            assert_eq!(name.parse::<Colour>(), Ok(colour));
        }
        assert_eq!(" Dark-BLUE ".parse::<Colour>(), Ok(Colour::DarkBlue));
        assert_eq!(Colour::default(), Colour::Red);
        assert_eq!(
            "mauve".parse::<Colour>(),
            Err("unknown colour 'mauve'; use red, dark-blue or green".to_string())
        );
        let long = "x".repeat(100) + "\n";
        let e = long.parse::<Colour>().unwrap_err();
        assert!(e.contains(&format!("'{}'", "x".repeat(40))), "{e}");
    }

    #[test]
    fn lists_read_as_a_sentence() {
        assert_eq!(super::listed(&["a"]), "a");
        assert_eq!(super::listed(&["a", "b"]), "a or b");
        assert_eq!(super::listed(&["a", "b", "c"]), "a, b or c");
    }
}
