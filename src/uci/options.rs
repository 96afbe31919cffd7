//! The `option name ...` lines sent after `uci`, written from the engine's typed
//! description of its options.

use crate::engine::options::{OptionId, OptionKind};

/// One `option name <name> type <type> default <value> ...` line.
pub fn declaration(id: OptionId) -> String {
    let name = id.name();
    match id.kind() {
        OptionKind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        OptionKind::Check { default } => format!("option name {name} type check default {default}"),
        OptionKind::Combo { default, choices } => {
            let vars: String = choices.iter().map(|c| format!(" var {c}")).collect();
            format!("option name {name} type combo default {default}{vars}")
        }
        OptionKind::Text { default } => format!("option name {name} type string default {default}"),
        OptionKind::Button => format!("option name {name} type button"),
    }
}

/// Every option's declaration, in the engine's order.
pub fn declarations() -> Vec<String> {
    OptionId::ALL.into_iter().map(declaration).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_match_the_defaults() {
        let lines = declarations();
        assert_eq!(
            lines,
            [
                "option name Hash type spin default 64 min 1 max 65536",
                "option name Threads type spin default 1 min 1 max 256",
                "option name Move Overhead type spin default 30 min 0 max 5000",
                "option name EvalFile type string default <embedded>",
                "option name Device type combo default auto var auto var cpu var cuda",
                "option name Ponder type check default false",
                "option name MaxBatch type spin default 1024 min 1 max 65536",
                "option name Precision type combo default auto var auto var fp32 var int8 var fp16 var bf16",
                "option name Encoder type combo default auto var auto var dense var sparse",
                "option name Backend type combo default auto var auto var native var torch",
                "option name Policy type string default <empty>",
                "option name PlayMode type combo default search var search var policy var greedy",
                "option name MultiPV type spin default 1 min 1 max 256",
                "option name UCI_ShowWDL type check default false",
                "option name UCI_LimitStrength type check default false",
                "option name UCI_Elo type spin default 1500 min 1350 max 1800",
                "option name UCI_Chess960 type check default false",
                "option name SyzygyPath type string default <empty>",
                "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
                "option name Clear Hash type button",
            ]
        );
    }
}
