//! The kinds of record file, by magic: so that a file of one kind given where another is
//! expected is named for what it is.

/// What identifies one kind of record file, and what to tell a user about it.
#[derive(Debug, PartialEq, Eq)]
pub struct Format {
    pub magic: &'static [u8; 8],
    pub version: u32,
    /// What a file of this kind is called in messages, e.g. "triplet file".
    pub name: &'static str,
    /// The command that makes one, e.g. "cerise data triplets".
    pub maker: &'static str,
    /// Whether a writer appends to it in commits ([`super::RecordAppender`]): a reader then
    /// takes the committed records and ignores a tail left by a run killed mid-commit.
    pub appendable: bool,
    /// For a kind that stores another kind in another form: that kind, and the command that
    /// gives it back, so that a reader of the inner kind says how to unpack it.
    pub packs: Option<(&'static Format, &'static str)>,
}

pub const TRIPLETS: Format = Format {
    magic: b"CRSTRIP1",
    version: 1,
    name: "triplet file",
    maker: "cerise data triplets",
    appendable: false,
    packs: None,
};

pub const POSITIONS: Format = Format {
    magic: b"CRSPOS01",
    version: 1,
    name: "labelled-positions file",
    maker: "cerise data positions",
    appendable: false,
    packs: None,
};

pub const SELFPLAY: Format = Format {
    magic: b"CRSSELF1",
    version: 1,
    name: "self-play file",
    maker: "cerise datagen",
    appendable: true,
    packs: None,
};

/// A self-play file stored game by game (`cerise datagen pack`); not a record file itself,
/// but it starts with the same prefix, so that one given to a reader is named.
pub const SELFPLAY_PACKED: Format = Format {
    magic: b"CRSSPAK1",
    version: 1,
    name: "packed self-play file",
    maker: "cerise datagen pack",
    appendable: false,
    packs: Some((
        &SELFPLAY,
        "cerise datagen unpack <packed file> --out <file>.self",
    )),
};

/// Every kind this build reads.
pub const ALL: [&Format; 4] = [&TRIPLETS, &POSITIONS, &SELFPLAY, &SELFPLAY_PACKED];
