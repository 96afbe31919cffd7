//! Labelling end to end on the fixture games with a fake UCI engine (fixtures/fake_uci.sh),
//! whose scores are known: 10 · len(FEN) + depth for the side to move, or mate in 3 when the
//! FEN's length is a multiple of 7.

use super::file::{Label, LabelsFile};
use super::run::{label_candidates, LabelJob};
use super::select::{select_positions, Candidate, SelectConfig};
use super::uci_client::{EngineSpec, SearchLimit};
use crate::data::testing::temp_dir;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/data/fixtures")
        .join(name)
}

fn config(positions: u64) -> SelectConfig {
    SelectConfig {
        positions,
        per_game: 4,
        skip_plies: 20,
        min_elo: 0,
        game_every: 1,
        seed: 7,
    }
}

fn candidates(positions: u64) -> Vec<Candidate> {
    let pgn = std::fs::File::open(fixture("mini.pgn")).unwrap();
    select_positions(pgn, "mini.pgn", &config(positions), |_| {})
        .unwrap()
        .candidates
}

fn job(engine: &str, jobs: usize) -> LabelJob {
    LabelJob {
        engine: EngineSpec {
            path: fixture(engine),
            hash_mb: 16,
            search_timeout: Duration::from_secs(20),
        },
        limit: SearchLimit::Depth(12),
        extra_depths: vec![2, 4],
        jobs,
        source: "mini.pgn".into(),
        selection: config(0).describe(),
    }
}

fn fake_label(fen: &str, depth: u32, white_to_move: bool) -> Label {
    let sign = if white_to_move { 1 } else { -1 };
    if fen.len().is_multiple_of(7) {
        Label::Mate(3 * sign)
    } else {
        Label::Cp(sign * (10 * fen.len() as i32 + depth as i32))
    }
}

fn sorted_rows(path: &Path) -> Vec<super::file::LabelRow> {
    let mut rows = LabelsFile::open(path).unwrap().rows;
    rows.sort_by_key(|r| r.index);
    rows
}

#[test]
fn selection_takes_middlegame_positions_deterministically() {
    let all = candidates(10_000);
    assert!(all.len() > 40, "the fixture gives {} positions", all.len());
    assert_eq!(all, candidates(10_000), "same settings, same choice");
    let mut per_game = std::collections::HashMap::new();
    let mut keys = HashSet::new();
    for (i, c) in all.iter().enumerate() {
        assert_eq!(c.index, i as u64);
        assert!(c.ply >= 20, "{c:?}");
        *per_game.entry(c.game).or_insert(0) += 1;
        let key: Vec<&str> = c.fen.split(' ').take(4).collect();
        assert!(keys.insert(key.join(" ")), "repeated {}", c.fen);
        let pos: shakmaty::Chess = c
            .fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert!(crate::features::phase(shakmaty::Position::board(&pos)) > 0);
        assert_eq!(shakmaty::Position::turn(&pos).is_white(), c.white_to_move);
    }
    assert!(per_game.values().all(|&n| n <= 4), "{per_game:?}");
    // A cap keeps a prefix of the same choice.
    assert_eq!(candidates(10), all[..10].to_vec());
    // One game in three: a subset of the games, the same positions from each game taken.
    let pgn = std::fs::File::open(fixture("mini.pgn")).unwrap();
    let third = SelectConfig {
        game_every: 3,
        ..config(10_000)
    };
    let some = select_positions(pgn, "mini.pgn", &third, |_| {}).unwrap();
    let games: HashSet<u64> = some.candidates.iter().map(|c| c.game).collect();
    assert!(
        !games.is_empty() && games.len() < per_game.len(),
        "{games:?}"
    );
    for c in &some.candidates {
        assert!(
            all.iter().any(|a| a.game == c.game && a.fen == c.fen),
            "{c:?}"
        );
    }
}

#[test]
fn labels_are_white_view_with_extra_depths() {
    let dir = temp_dir("label-white_view");
    let out = dir.join("labels.tsv");
    let chosen = candidates(30);
    let summary = label_candidates(&chosen, &out, &job("fake_uci.sh", 2), |_| {}).unwrap();
    assert_eq!((summary.labelled, summary.total), (30, 30));
    assert_eq!(summary.engine, "FakeFish 1");
    let file = LabelsFile::open(&out).unwrap();
    assert_eq!(file.header.limit, "depth 12");
    assert_eq!(file.header.extra_depths, vec![2, 4]);
    assert!(!file.partial_tail);
    let rows = sorted_rows(&out);
    assert_eq!(rows.len(), 30);
    let mut mates = 0;
    for (row, c) in rows.iter().zip(&chosen) {
        assert_eq!((row.index, row.game, row.ply), (c.index, c.game, c.ply));
        assert_eq!(row.fen, c.fen);
        assert_eq!(row.score, fake_label(&c.fen, 12, c.white_to_move));
        assert_eq!(
            row.extra,
            vec![
                fake_label(&c.fen, 2, c.white_to_move),
                fake_label(&c.fen, 4, c.white_to_move)
            ]
        );
        mates += usize::from(row.score.cp().is_none());
    }
    assert!(chosen.iter().any(|c| !c.white_to_move));
    assert!(mates < rows.len());
}

#[test]
fn a_killed_run_resumes_without_relabelling() {
    let dir = temp_dir("label-resume");
    let whole = dir.join("whole.tsv");
    let chosen = candidates(25);
    label_candidates(&chosen, &whole, &job("fake_uci.sh", 1), |_| {}).unwrap();

    // A kill: the first 9 rows complete, the tenth cut in the middle.
    let cut = dir.join("cut.tsv");
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let header_lines = 7;
    let mut partial: String = lines[..header_lines + 9].concat();
    partial.push_str(&lines[header_lines + 9][..10]);
    std::fs::write(&cut, partial).unwrap();
    let before = LabelsFile::open(&cut).unwrap();
    assert_eq!(before.rows.len(), 9);
    assert!(before.partial_tail);

    let summary = label_candidates(&chosen, &cut, &job("fake_uci.sh", 2), |_| {}).unwrap();
    assert_eq!(
        (summary.resumed, summary.labelled, summary.total),
        (9, 16, 25)
    );
    assert_eq!(sorted_rows(&cut), sorted_rows(&whole));
    assert!(!LabelsFile::open(&cut).unwrap().partial_tail);

    // Nothing left: a third run labels nothing.
    let again = label_candidates(&chosen, &cut, &job("fake_uci.sh", 1), |_| {}).unwrap();
    assert_eq!((again.resumed, again.labelled), (25, 0));
}

#[test]
fn a_file_made_with_other_settings_is_refused() {
    let dir = temp_dir("label-settings");
    let out = dir.join("labels.tsv");
    let chosen = candidates(5);
    label_candidates(&chosen, &out, &job("fake_uci.sh", 1), |_| {}).unwrap();
    let mut deeper = job("fake_uci.sh", 1);
    deeper.limit = SearchLimit::Depth(14);
    let err = label_candidates(&chosen, &out, &deeper, |_| {}).unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("depth 12") && text.contains("depth 14"),
        "{text}"
    );
    // Candidates that are not the ones in the file (another source) are refused too.
    let other: Vec<Candidate> = candidates(5)
        .into_iter()
        .map(|mut c| {
            c.game += 1;
            c
        })
        .collect();
    let err = label_candidates(&other, &out, &job("fake_uci.sh", 1), |_| {}).unwrap_err();
    assert!(
        format!("{err:#}").contains("source file changed"),
        "{err:#}"
    );
}

#[test]
fn an_engine_crash_keeps_what_was_labelled() {
    let dir = temp_dir("label-crash");
    let out = dir.join("labels.tsv");
    let chosen = candidates(10);
    // Three searches per position (depth 12, then 2 and 4): the fourth search kills it.
    let err = label_candidates(&chosen, &out, &job("fake_uci_crash.sh", 1), |_| {}).unwrap_err();
    let text = format!("{err:#}");
    assert!(text.contains("stopped answering"), "{text}");
    assert!(
        text.contains("1 positions labelled so far are kept"),
        "{text}"
    );
    assert_eq!(LabelsFile::open(&out).unwrap().rows.len(), 1);
    // The same command with a working engine resumes.
    let summary = label_candidates(&chosen, &out, &job("fake_uci.sh", 1), |_| {}).unwrap();
    assert_eq!((summary.resumed, summary.labelled), (1, 9));
}

#[test]
fn a_program_that_is_not_an_engine_is_refused() {
    let dir = temp_dir("label-not_engine");
    let mut spec = job("fake_uci.sh", 1);
    spec.engine.path = "/bin/true".into();
    let err = label_candidates(&candidates(3), &dir.join("x.tsv"), &spec, |_| {}).unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("/bin/true") && text.contains("uciok"),
        "{text}"
    );
}

#[test]
fn bad_labels_files_say_what_is_wrong() {
    let read = |text: &str| {
        LabelsFile::read(text.as_bytes())
            .map(|_| ())
            .map_err(|e| format!("{e:#}"))
    };
    let header = "# cerise-labels v1\n# engine: E\n# limit: depth 3\n# extra-depths: 2\n\
                  # source: s\n# selection: x\nindex\tgame\tply\tfen\tscore\td2\n";
    assert!(read(header).is_ok());
    let err = read("hello\n").unwrap_err();
    assert!(err.contains("header ends early"), "{err}");
    let err = read(&header.replace("v1", "v9")).unwrap_err();
    assert!(err.contains("line 1"), "{err}");
    let err = read(&format!("{header}0\t1\t2\tfen\t30\n")).unwrap_err();
    assert!(
        err.contains("line 8") && err.contains("5 tab-separated"),
        "{err}"
    );
    let err = read(&format!("{header}0\t1\t2\tfen\tbig\t3\n")).unwrap_err();
    assert!(err.contains("line 8") && err.contains("`big`"), "{err}");
    let ok = LabelsFile::read(format!("{header}0\t1\t2\tfen\t#-2\t-30\n").as_bytes()).unwrap();
    assert_eq!(ok.rows[0].score, Label::Mate(-2));
    assert_eq!(ok.rows[0].extra, vec![Label::Cp(-30)]);
}
