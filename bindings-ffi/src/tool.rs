//! Await-style tools for C (`mrtr_run_tool`): the host's tool is a function
//! pointer, called once per request with the façade's `ToolRun`, whose
//! generated functions ask (`mrtr_tool_run_ask`) and keep data. A callback
//! cannot be suspended, so the tool is replayed: at an ask without an answer
//! it returns `MRTR_TOOL_STOP`, and the next request runs it from the top. It
//! runs outside the panic boundary (C cannot unwind into Rust).

use crate::args::{self, write};
use crate::buf::{mrtr_buf, Out};
use crate::exports::{mrtr_keyring, mrtr_keyring_start_tool_replay, mrtr_tool_replay, mrtr_tool_run};
use crate::handles::{self, get, get_mut, Kind};
use crate::ring::mrtr_first_use;
use crate::status::{guard, mrtr_status, null, usage, MRTR_OK};
use mrtr::Error;
use mrtr_facade::{self as facade, Randomness};
use std::cell::RefCell;
use std::ffi::{c_char, c_void};

/// What a tool returns when an ask found no answer in the request (`{NULL,
/// 0}`): the tool stops here (the run answers `input_required`). Not a rule
/// and not a failure: the ordinary end of a round.
pub const MRTR_TOOL_STOP: mrtr_status = -1;

/// An await-style tool: called with `user` (the pointer given beside it), the run and the request's
/// `params.arguments` (JSON text, `{}` when absent; NUL-terminated, `arguments_len` not counting it). It
/// asks with `mrtr_tool_run_ask` (an answer, `{NULL, 0}` for none, or a refusal's rule) and returns
/// `MRTR_OK` once it set its result (`mrtr_tool_result`), `MRTR_TOOL_STOP` at an ask without an answer
/// (or any status an ask gave it), or a status of its own for its own failure. The run is valid only
/// during the call and is not the tool's to free. The tool runs again, from the top, on every request
/// of its call: code before its last ask must be free of side effects. It must not unwind or longjmp.
pub type mrtr_tool = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        run: *mut mrtr_tool_run,
        arguments: *const c_char,
        arguments_len: usize,
    ) -> mrtr_status,
>;

thread_local! {
    /// The result the running tool set (`mrtr_tool_result`), with its run's address.
    static RESULT: RefCell<Option<(usize, Vec<u8>)>> = const { RefCell::new(None) };
}

/// Runs `tool` (called with `user`) on `request` over sealed rounds: starts
/// the run as `mrtr_keyring_start_tool_replay` does (`ring`, the round
/// `settings` and the `call` as JSON text, the replay guard `first_use` with
/// `guard_user`), calls the tool once, and ends the run as the core's
/// `ToolRun` decides. `MRTR_OK` gives the response to send in `*response`
/// (free it with `mrtr_buf_free`) with `*http_status`, and `*refusal`:
///
/// - `MRTR_OK` and 200: `input_required` asking every question still
///   unanswered (sealing the data the tool set, else the last round's), or
///   the tool's result as the `complete` response;
/// - a rule number: the run was refused (an answer that does not fit, an ask
///   the request did not declare, the round cap), and `*response` is its
///   JSON-RPC error response with its HTTP status. A refusal at an ask ends
///   the run even when the tool went on after it: it wins over the tool's
///   result and over its own failure.
///
/// A failure of the start (a bad or replayed state, a request that does not
/// parse: answer it with `mrtr_error_response`) is the status, as is the
/// tool's own status when it failed without a refusal (returned as it was),
/// with `*response` `{NULL, 0}`.
///
/// # Safety
/// `ring` is a live ring; each `(pointer, length)` is valid; `first_use` is
/// NULL or callable with `guard_user`; `tool` is callable with `user`; the
/// out pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_run_tool(
    ring: *const mrtr_keyring,
    request: *const c_char,
    request_len: usize,
    settings: *const c_char,
    settings_len: usize,
    call: *const c_char,
    call_len: usize,
    first_use: mrtr_first_use,
    guard_user: *mut c_void,
    tool: mrtr_tool,
    user: *mut c_void,
    response: *mut mrtr_buf,
    http_status: *mut u16,
    refusal: *mut mrtr_status,
) -> mrtr_status {
    let checked = guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        unsafe { Out::new(response) }?;
        tool.map(drop).ok_or_else(|| null("tool"))
    });
    let (MRTR_OK, Some(tool)) = (checked, tool) else { return checked };
    let mut replay: *mut mrtr_tool_replay = std::ptr::null_mut();
    // SAFETY: the caller's contract, passed on; `replay` is writable. A failure says why itself.
    let started = unsafe {
        let (s, c) = (settings, call);
        mrtr_keyring_start_tool_replay(
            ring,
            request,
            request_len,
            s,
            settings_len,
            c,
            call_len,
            first_use,
            guard_user,
            &mut replay,
        )
    };
    if started != MRTR_OK {
        return started;
    }
    let mut run = None;
    // SAFETY: `replay` is the live handle the start just made, used by no one else and not afterwards.
    let taken = guard(|| unsafe {
        run = Some(mrtr_tool_run(get_mut(replay, "replay")?.0.run()));
        handles::free(replay)
    });
    let (Some(mut run), MRTR_OK) = (run, taken) else { return taken };
    // SAFETY: the caller's contract: `tool` is callable with `user`.
    let (played, result) = unsafe { play(tool, user, &mut run) };
    let mut own = MRTR_OK;
    let ended = guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (out, ring, settings) =
            unsafe { (Out::new(response)?, get(ring, "ring")?, args::required(settings, settings_len, "settings")?) };
        let ended = match played {
            MRTR_OK | MRTR_TOOL_STOP => run.0.respond(&ring.0, result.as_deref(), Randomness::Os),
            _ => match run.0.refused() {
                Ok(()) => {
                    own = played; // the tool's own failure, as it was
                    return Ok(());
                }
                Err(e) => Err(e),
            },
        };
        let (text, status, rule) = sent(ended, &run.0, facade::RoundsSettings::from_json(settings)?.options())?;
        // SAFETY: the caller promises the out pointers are writable.
        unsafe { (write(http_status, status, "http_status")?, write(refusal, rule, "refusal")?) };
        out.set(text);
        Ok(())
    });
    if ended == MRTR_OK {
        own
    } else {
        ended
    }
}

/// The signature of a tool that is not NULL.
type ToolFn = unsafe extern "C" fn(*mut c_void, *mut mrtr_tool_run, *const c_char, usize) -> mrtr_status;

/// Calls the tool once with `run` live (the debug builds' table knows it only
/// meanwhile): its status, and the result it set when it returned `MRTR_OK`.
///
/// # Safety
/// `tool` is callable with `user`.
unsafe fn play(tool: ToolFn, user: *mut c_void, run: &mut mrtr_tool_run) -> (mrtr_status, Option<Vec<u8>>) {
    let mut arguments = run.0.arguments().unwrap_or_else(|| String::from("{}")).into_bytes();
    let len = arguments.len();
    arguments.push(0);
    let ptr: *mut mrtr_tool_run = run;
    handles::born(ptr as usize, Kind::ToolRun);
    // A run inside a tool (another mrtr_run_tool) keeps the outer tool's result aside meanwhile.
    let outer = RESULT.with(|r| r.borrow_mut().take());
    // SAFETY: the caller's contract; `arguments` is NUL-terminated and outlives the call, `ptr` is live.
    let status = unsafe { tool(user, ptr, arguments.as_ptr().cast(), len) };
    let _ = handles::check(ptr as usize, Kind::ToolRun, true);
    let set = RESULT.with(|r| r.replace(outer)).filter(|(at, _)| *at == ptr as usize);
    (status, set.filter(|_| status == MRTR_OK).map(|(_, result)| result))
}

/// What to send for the run's end: its response, HTTP status and refusal
/// rule; an error the run did not record (a result that is no JSON) is the
/// host's failure.
fn sent(ended: Result<String, Error>, run: &facade::ToolRun, o: &facade::Options) -> Result<(String, u16, i32), Error> {
    let error = match ended {
        Ok(response) => return Ok((response, 200, MRTR_OK)),
        Err(e) => e,
    };
    let Some(built) = run.refusal_response(o) else { return Err(error) };
    let mut built: serde_json::Value = serde_json::from_str(&built).map_err(|e| usage(e.to_string()))?;
    let status = built["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(500);
    Ok((built["response"].take().to_string(), status, mrtr_status::from(error.rule() as u16)))
}

/// The tool's result (JSON text, copied): set it, then return `MRTR_OK`.
/// Read when the run ends (a result that is no JSON fails `mrtr_run_tool`).
///
/// # Safety
/// `run` is the run `mrtr_run_tool` gave the running tool; `(result,
/// result_len)` is valid.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_result(
    run: *const mrtr_tool_run,
    result: *const c_char,
    result_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let result = unsafe { (get(run, "run")?, args::required(result, result_len, "result")?).1 };
        RESULT.with(|r| *r.borrow_mut() = Some((run as usize, result.to_vec())));
        Ok(())
    })
}
