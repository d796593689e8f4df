//! The front door: `--version`, help per subcommand, and usage errors.

use std::process::{Command, Output};

fn mrtr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtr")).args(args).output().expect("runs mrtr")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn version_names_the_package_version_and_every_protocol() {
    for args in [
        &["--version"][..],
        &["-V"],
        &["check", "--version"],
        &["proxy", "-V"],
        &["proxy", "--listen", "x", "--version"],
    ] {
        let out = mrtr(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = stdout(&out);
        assert!(text.starts_with(&format!("mrtr {} (protocols: ", env!("CARGO_PKG_VERSION"))), "{text}");
        for protocol in mrtr::Protocol::ALL {
            assert!(text.contains(protocol.name()), "{text} lacks {}", protocol.name());
        }
    }
}

#[test]
fn each_subcommand_has_its_help_on_stdout() {
    for (args, first) in [
        (&["--help"][..], "usage: mrtr <command>"),
        (&["help"][..], "usage: mrtr <command>"),
        (&["help", "check"][..], "usage: mrtr check"),
        (&["check", "--help"][..], "usage: mrtr check"),
        (&["help", "proxy"][..], "usage: mrtr proxy"),
        (&["proxy", "-h"][..], "usage: mrtr proxy"),
    ] {
        let out = mrtr(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(stdout(&out).starts_with(first), "{args:?}: {}", stdout(&out));
    }
}

#[test]
fn bad_usage_exits_2_with_the_usage_on_stderr() {
    for (args, said) in [
        (&[][..], "mrtr: no command"),
        (&["lint"][..], "mrtr: unknown command \"lint\""),
        (&["help", "lint"][..], "unknown command \"lint\""),
        (
            &["check", "--protocol", "2099-01-01"][..],
            r#"mrtr check: unknown protocol "2099-01-01": the known ones are 2026-07-28, sep-2322, sep-2322-draft, 2025-11-25"#,
        ),
        (&["check", "--frobnicate"][..], "mrtr check: invalid option '--frobnicate'"),
    ] {
        let out = mrtr(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said) && err.contains("usage: mrtr"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn check_without_a_file_checks_the_bundled_example() {
    let out = mrtr(&["check"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("compliant: no violation"), "{}", stdout(&out));
}

#[test]
fn check_reports_the_buggy_client_and_exits_1() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/buggy-client.jsonl");
    let out = mrtr(&["check", path, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!report["violations"].as_array().unwrap().is_empty(), "{report}");
}
