//! The `requestState` the reverse bridge hands its MRTR clients: sealed with
//! mrtr's key ring, naming this bridge instance and the parked call.
//!
//! The state is not the call (the call lives here, parked on its open
//! upstream stream): it is a claim ticket. Sealing it (XAES-256-GCM,
//! bound to the request's method, target and params and to an expiry, under
//! the deployment label [`CONTEXT`]) means a client can neither read which
//! call it names nor forge one that names another client's call; the core
//! decides every refusal of a bad token (`state-tampered`, `state-expired`,
//! `state-wrong-request`, …), and its replay guard makes each state single
//! use (`state-replayed`).
//!
//! The payload is `{"i": instance, "c": call key, "r": round}`: the
//! instance, so that a retry a load balancer sent to another instance that
//! shares the key is told where its call is parked, and not mistaken for an
//! unknown one; the round, so that only the state of the round the call
//! waits on is taken.

use mrtr::state::{Algorithm, Binding, Key, KeyRing, MemoryGuard, Subject};
use mrtr::{Error, Millis, Protocol, RuleId};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The deployment label every token of the reverse bridge is sealed under:
/// another mrtr deployment that happens to share the secret never opens them.
const CONTEXT: &[u8] = b"mrtr-bridge reverse v1";

/// What a state names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The instance that sealed it.
    pub(crate) instance: String,
    /// The parked call's key there.
    pub(crate) call: String,
    /// The round it answers.
    pub(crate) round: u32,
}

/// The key ring, this instance's name, and the single-use guard.
pub(crate) struct Sealer {
    ring: KeyRing,
    guard: Mutex<MemoryGuard>,
    pub(crate) instance: String,
}

/// The clock since the Unix epoch (the sealed state takes its whole seconds).
fn now() -> Millis {
    Millis(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
}

/// The binding of a request's state: no principal (the bridge authenticates
/// nobody, so it binds the explicit anonymous subject), the request itself.
fn binding(request: &Value) -> Result<Binding<'_>, Error> {
    Binding::for_request(request, Subject::Anonymous, Protocol::V2026_07_28)
}

impl Sealer {
    /// A ring from `key_file` (the same file on every instance behind one
    /// load balancer), or from 32 random bytes under a random key id (so
    /// that a restarted instance calls its predecessor's tokens
    /// `state-unknown-key` rather than tampered). Says which on stderr.
    pub(crate) fn new(key_file: Option<&Path>, instance: Option<String>) -> std::io::Result<Sealer> {
        let key = match key_file {
            Some(path) => key_from_file(path)?,
            None => random_key()?,
        };
        let mut ring = KeyRing::new(key);
        ring.set_context(CONTEXT).map_err(invalid)?;
        let instance = match instance {
            Some(name) if !name.is_empty() => name,
            Some(_) => return Err(invalid_text("--instance names the instance: it cannot be empty")),
            None => crate::sessions::random_id().ok_or_else(|| invalid_text("no randomness from the OS"))?,
        };
        match key_file {
            Some(path) => {
                eprintln!("mrtr bridge: instance {instance}, requestState sealed with the key of {}", path.display())
            }
            None => eprintln!(
                "mrtr bridge: instance {instance}, requestState sealed with a random key made at start \
                 (other instances cannot open it; give every instance --state-key-file to share one)"
            ),
        }
        Ok(Sealer { ring, guard: Mutex::new(MemoryGuard::new()), instance })
    }

    /// Seals the claim on `call`'s `round`, bound to `request`, valid for `ttl` seconds.
    pub(crate) fn seal(&self, request: &Value, call: &str, round: u32, ttl: u32) -> Result<String, Error> {
        let payload = json!({"i": self.instance, "c": call, "r": round}).to_string();
        self.ring.seal_os(&binding(request)?, now(), ttl, payload.as_bytes())
    }

    /// Opens the state `token` a retry of `request` carries, once: the core's
    /// refusal of a bad token, else what it claims.
    pub(crate) fn open(&self, request: &Value, token: &str) -> Result<Claim, Error> {
        let now = now();
        let mut guard = self.guard.lock().unwrap_or_else(|p| p.into_inner());
        guard.prune(now);
        let opened = self.ring.open_once(token, &binding(request)?, now, &mut *guard)?;
        let payload: Value = serde_json::from_slice(&opened.payload).unwrap_or(Value::Null);
        let text = |k: &str| payload.get(k).and_then(Value::as_str).map(String::from);
        let round = payload.get("r").and_then(Value::as_u64).and_then(|r| u32::try_from(r).ok());
        match (text("i"), text("c"), round) {
            (Some(instance), Some(call), Some(round)) => Ok(Claim { instance, call, round }),
            // Sealed by a key of this deployment, yet not a claim of ours.
            _ => Err(Error::with(RuleId::StateMalformed, "requestState names no parked call".into())),
        }
    }
}

fn invalid(e: Error) -> std::io::Error {
    invalid_text(&e.to_string())
}

fn invalid_text(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_string())
}

/// How to make a key file, said with every refusal of one.
const MAKE_A_KEY: &str = "make one with `openssl rand -hex 32 > FILE` or `head -c 32 /dev/urandom > FILE`, \
                          readable by its owner alone (chmod 600)";

/// The fewest distinct byte values a secret of 32 bytes or more may hold:
/// 32 random bytes hold about 30, and fewer than 16 has odds below 2^-60.
const MIN_DISTINCT_BYTES: usize = 16;

/// The key of `path`, from which the key of id 1 is derived: 64 or more hex
/// digits, or at least 32 random bytes. Refused: a file that reads as text
/// but not as hex (a passphrase), and a secret of few distinct byte values
/// (`changeme`, repeated bytes). A file readable by group or others is
/// said on stderr.
fn key_from_file(path: &Path) -> std::io::Result<Key> {
    let bytes = std::fs::read(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("the state key file {}: {e}", path.display())))?;
    let secret =
        key_secret(&bytes).map_err(|why| invalid_text(&format!("the state key file {}: {why}", path.display())))?;
    warn_if_shared(path);
    Key::derive(1, Algorithm::Xaes256Gcm, &secret)
        .map_err(|e| invalid_text(&format!("the state key file {}: {e}; {MAKE_A_KEY}", path.display())))
}

/// The secret a key file's `bytes` hold, or why they are no key.
fn key_secret(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(bytes).ok().map(str::trim);
    let secret = match text {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()) => {
            hex(digits).ok_or_else(|| {
                format!("{} hex digits: a key in hex is an even number of 64 or more digits (32 bytes or more); {MAKE_A_KEY}", digits.len())
            })?
        }
        _ if bytes.iter().all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace()) => {
            return Err(format!(
                "it reads as text, not as hex digits (a passphrase is no key: a key is 32 random bytes or \
                 64 hex digits); {MAKE_A_KEY}"
            ));
        }
        _ => bytes.to_vec(),
    };
    if secret.len() < mrtr::state::MASTER_MIN_BYTES {
        return Err(format!(
            "{} bytes: a key is at least 32 random bytes or 64 hex digits; {MAKE_A_KEY}",
            secret.len()
        ));
    }
    let mut seen = [false; 256];
    secret.iter().for_each(|&b| seen[usize::from(b)] = true);
    let distinct = seen.iter().filter(|&&s| s).count();
    if distinct < MIN_DISTINCT_BYTES {
        return Err(format!(
            "its {} bytes hold only {distinct} distinct values: not random (random bytes hold about 30); {MAKE_A_KEY}",
            secret.len()
        ));
    }
    Ok(secret)
}

/// Says on stderr when the key file at `path` is readable by its group or
/// by others: anyone who reads it can forge every state.
fn warn_if_shared(path: &Path) {
    if let Some(warning) = exposure(path) {
        eprintln!("mrtr bridge: warning: {warning}");
    }
}

/// Why the key file at `path` is exposed, if it is readable by its group or others.
fn exposure(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        if mode & 0o044 != 0 {
            let whom = if mode & 0o004 != 0 { "others" } else { "its group" };
            return Some(format!(
                "the state key file {} is readable by {whom} (mode {mode:03o}): whoever reads it can forge \
                 states; chmod 600 it",
                path.display()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    None
}

/// `text` as hex digits, when it is only that (and at least 64 of them).
fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() < 64 || text.len() % 2 != 0 {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// 32 random bytes under a random key id (2 to 255: never the key file's 1,
/// so a state sealed under a shared key is `state-unknown-key` to an
/// instance that was started without it).
fn random_key() -> std::io::Result<Key> {
    let mut secret = [0u8; 33];
    getrandom::fill(&mut secret).map_err(|e| invalid_text(&format!("no randomness from the OS: {e}")))?;
    let id = secret[32] % 254 + 2;
    let key: [u8; 32] = secret[..32].try_into().unwrap_or([0; 32]);
    Ok(Key::new(id, Algorithm::Xaes256Gcm, &key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": arguments}})
    }

    /// A claim opens once for its request; a replay, another request's state
    /// and a changed byte are each refused with the core's rule.
    #[test]
    fn claims_open_once_for_their_request() {
        let sealer = Sealer::new(None, Some("a".into())).unwrap();
        let token = sealer.seal(&request(json!({"x": 1})), "k", 2, 60).unwrap();
        let claim = sealer.open(&request(json!({"x": 1})), &token).unwrap();
        assert_eq!(claim, Claim { instance: "a".into(), call: "k".into(), round: 2 });
        assert_eq!(sealer.open(&request(json!({"x": 1})), &token).unwrap_err().rule(), RuleId::StateReplayed);
        let other = sealer.seal(&request(json!({"x": 1})), "k", 3, 60).unwrap();
        assert_eq!(sealer.open(&request(json!({"x": 2})), &other).unwrap_err().rule(), RuleId::StateWrongRequest);
        let mut bytes = other.into_bytes();
        // A character inside (the nonce): the last one may carry only padding bits.
        bytes[20] = if bytes[20] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert_eq!(sealer.open(&request(json!({"x": 1})), &tampered).unwrap_err().rule(), RuleId::StateTampered);
    }

    /// Two instances with one key file open each other's states (and see
    /// whose they are); a key file too short is refused at start.
    #[test]
    fn a_key_file_is_shared_and_checked() {
        let dir = std::env::temp_dir().join(format!("mrtr-sealing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, short) = (dir.join("good"), dir.join("short"));
        std::fs::write(&good, TEST_HEX).unwrap();
        std::fs::write(&short, "abcd").unwrap();
        let (a, b) = (Sealer::new(Some(&good), Some("a".into())).unwrap(), Sealer::new(Some(&good), None).unwrap());
        let token = a.seal(&request(json!({})), "k", 1, 60).unwrap();
        assert_eq!(b.open(&request(json!({})), &token).unwrap().instance, "a");
        assert!(Sealer::new(Some(&short), None).is_err());
        assert!(Sealer::new(None, Some(String::new())).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// 64 hex digits of 32 distinct bytes (a test key, not a secret).
    const TEST_HEX: &str = "8f3a61c2d94e07b5a1f6e8239c4d70b2e5196a3fc8d24b0e7f5a91c36e2d48b7";

    /// The key file's text as the bridge reads it: the secret, or the refusal.
    fn secret_of(bytes: &[u8]) -> Result<Vec<u8>, String> {
        key_secret(bytes)
    }

    /// 64 hex digits (a newline after them too) and 32 random bytes are keys;
    /// the refusals name the fix.
    #[test]
    fn hex_digits_and_random_bytes_are_keys() {
        assert_eq!(secret_of(TEST_HEX.as_bytes()).unwrap().len(), 32);
        assert_eq!(secret_of(format!("{TEST_HEX}\n").as_bytes()).unwrap().len(), 32);
        assert_eq!(secret_of(TEST_HEX.to_uppercase().as_bytes()).unwrap().len(), 32);
        let mut random = [0u8; 32];
        getrandom::fill(&mut random).unwrap();
        // Random bytes that happen to be all text are 1 in 2^40: make them not.
        random[0] = 0;
        assert_eq!(secret_of(&random).unwrap(), random);
    }

    /// Review I7: a passphrase of 32 characters (`changeme` × 4) was taken as
    /// the raw secret. Text that is not hex is refused, whatever its length.
    #[test]
    fn a_passphrase_is_no_key() {
        for text in
            ["changeme".repeat(4), "correct horse battery staple, 2026!".into(), format!("{}\n", "x7".repeat(40))]
        {
            let why = secret_of(text.as_bytes()).unwrap_err();
            assert!(why.contains("reads as text") && why.contains("openssl rand -hex 32"), "{text}: {why}");
            assert!(why.contains("head -c 32 /dev/urandom"), "{why}");
        }
    }

    /// Too few hex digits, too few bytes, and bytes of few distinct values
    /// (hex or raw) are refused.
    #[test]
    fn short_and_low_entropy_keys_are_refused() {
        assert!(secret_of(&TEST_HEX.as_bytes()[..62]).unwrap_err().contains("62 hex digits"));
        assert!(secret_of(&TEST_HEX.as_bytes()[..63]).unwrap_err().contains("63 hex digits"));
        assert!(secret_of(&[0x80, 1, 2, 3]).unwrap_err().contains("4 bytes"));
        assert!(secret_of(b"").is_err());
        for low in ["00".repeat(32), "5eed".repeat(16), "0123456789abcd".repeat(5)] {
            let why = secret_of(low.as_bytes()).unwrap_err();
            assert!(why.contains("distinct values"), "{low}: {why}");
        }
        let raw: Vec<u8> = (0..64u8).map(|i| 0x80 | (i % 15)).collect();
        assert!(secret_of(&raw).unwrap_err().contains("only 15 distinct values"));
    }

    /// A key file readable by others still starts the bridge (a warning on
    /// stderr: its group, others, or neither); a bad one is refused at
    /// start with the file's name.
    #[test]
    fn key_files_are_read_and_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("mrtr-sealing-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (open, pass) = (dir.join("open.key"), dir.join("pass.key"));
        std::fs::write(&open, TEST_HEX).unwrap();
        std::fs::write(&pass, "changeme".repeat(4)).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        assert!(key_from_file(&open).is_ok());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let warning = exposure(&open).unwrap();
            assert!(warning.contains("readable by others (mode 644)") && warning.contains("chmod 600"), "{warning}");
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o640)).unwrap();
            assert!(exposure(&open).unwrap().contains("readable by its group (mode 640)"));
            std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o600)).unwrap();
            assert_eq!(exposure(&open), None);
        }
        let why = Sealer::new(Some(&pass), None).err().unwrap().to_string();
        assert!(why.contains("pass.key") && why.contains("reads as text"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
