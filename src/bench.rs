//! `bench`: fixed positions at a fixed depth, ending with `N nodes M nps`.
