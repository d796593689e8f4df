//! Await-style tools for C (`mrtr_run_tool`): the host's tool is a function
//! pointer, called once per request with a context whose asks answer or say
//! "stop here" (`MRTR_TOOL_STOP`). The round sequence and the refusal policy
//! are the façade's `ToolRun` (the machine every language's runner drives):
//! this module only calls the tool between starting the run and ending it.
//!
//! A callback cannot be suspended, so the tool is replayed: at an ask without
//! an answer it returns `MRTR_TOOL_STOP`, and the next request runs it from
//! the top. The tool runs outside the panic boundary (it is C: it cannot
//! unwind into Rust); the context's functions each run inside it.

use crate::args::{self, write};
use crate::buf::{mrtr_buf, Out};
use crate::exports::mrtr_tool_replay;
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::state::{mrtr_call, mrtr_first_use, mrtr_keyring, mrtr_keyring_start_tool_replay, mrtr_rounds, reading};
use crate::status::{guard, mrtr_status, null, usage, MRTR_OK};
use crate::types::options;
use mrtr::Error;
use mrtr_facade::{self as facade, Randomness};
use std::ffi::{c_char, c_void};

/// What an ask returns when the request holds no answer: the tool stops
/// here and returns it (the run answers `input_required`). Not a rule and
/// not a failure: the ordinary end of a round.
pub const MRTR_TOOL_STOP: mrtr_status = -1;

/// An await-style tool: called with `user` (the pointer given beside it),
/// its context and the request's `params.arguments` (JSON text, `{}` when
/// absent; NUL-terminated, `arguments_len` not counting it). It asks through
/// `ctx` and returns `MRTR_OK` once it set its result (`mrtr_tool_result`),
/// `MRTR_TOOL_STOP` (or any status an ask gave it) as an ask returned it, or
/// a status of its own for its own failure. It runs again, from the top, on
/// every request of its call: code before its last ask must be free of side
/// effects. It must not unwind or longjmp.
pub type mrtr_tool = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        ctx: *mut mrtr_tool_ctx,
        arguments: *const c_char,
        arguments_len: usize,
    ) -> mrtr_status,
>;

/// A tool's view of one request (`mrtr_tool_ask`, `mrtr_tool_result`, …):
/// valid only while `mrtr_run_tool` calls the tool.
///
/// An opaque handle.
pub struct mrtr_tool_ctx {
    run: facade::ToolRun,
    result: Option<Vec<u8>>,
}

impl Handle for mrtr_tool_ctx {
    const KIND: Kind = Kind::ToolCtx;
}

/// The end of `mrtr_run_tool`'s call: what to send, its HTTP status and the
/// refusal's rule.
struct Sent {
    response: String,
    status: u16,
    refusal: mrtr_status,
}

/// Runs `tool` (called with `user`) on `request` over sealed rounds: starts
/// the run as `mrtr_keyring_start_tool_replay` does (`ring`, `rounds`,
/// `call`, the replay guard `first_use` with `guard_user`), calls the tool
/// once, and ends the run as the core's `ToolRun` decides. `MRTR_OK` gives
/// the response to send in `*response` (free it with `mrtr_buf_free`) with
/// `*http_status`, and `*refusal`:
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
/// `ring` is a live ring; `rounds` and `call` are readable with valid
/// strings; `(request, request_len)` is valid; `first_use` is NULL or
/// callable with `guard_user`; `tool` is callable with `user`; the out
/// pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_run_tool(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    call: *const mrtr_call,
    request: *const c_char,
    request_len: usize,
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
        mrtr_keyring_start_tool_replay(ring, rounds, call, request, request_len, first_use, guard_user, &mut replay)
    };
    if started != MRTR_OK {
        return started;
    }
    let mut ctx = None;
    // SAFETY: `replay` is the live handle the start just made, used by no one else and not afterwards.
    let taken = guard(|| unsafe { take(&mut ctx, replay) });
    let (Some(mut ctx), MRTR_OK) = (ctx, taken) else { return taken };
    // SAFETY: the caller's contract: `tool` is callable with `user`.
    let played = unsafe { play(tool, user, &mut ctx) };
    let mut own = MRTR_OK;
    // SAFETY: the caller's contract (`# Safety`), passed on.
    let ended = guard(|| unsafe { finish(&mut ctx, played, ring, rounds, &mut own, response, http_status, refusal) });
    if ended == MRTR_OK {
        own
    } else {
        ended
    }
}

/// The run over `replay`, which it takes whole; the replay is freed.
///
/// # Safety
/// `replay` is a live handle used by no one else, not used afterwards.
unsafe fn take(ctx: &mut Option<Box<mrtr_tool_ctx>>, replay: *mut mrtr_tool_replay) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    let run = unsafe { get_mut(replay, "replay") }?.0.run();
    // SAFETY: the caller's contract.
    unsafe { handles::free(replay) }?;
    *ctx = Some(Box::new(mrtr_tool_ctx { run, result: None }));
    Ok(())
}

/// The signature of a tool that is not NULL.
type ToolFn = unsafe extern "C" fn(*mut c_void, *mut mrtr_tool_ctx, *const c_char, usize) -> mrtr_status;

/// Calls the tool once with `ctx` live (the debug builds' table knows it only meanwhile): its status.
///
/// # Safety
/// `tool` is callable with `user`.
unsafe fn play(tool: ToolFn, user: *mut c_void, ctx: &mut mrtr_tool_ctx) -> mrtr_status {
    let mut arguments = ctx.run.arguments().unwrap_or_else(|| String::from("{}")).into_bytes();
    let len = arguments.len();
    arguments.push(0);
    let ptr: *mut mrtr_tool_ctx = ctx;
    handles::born(ptr as usize, Kind::ToolCtx);
    // SAFETY: the caller's contract; `arguments` is NUL-terminated and outlives the call, `ptr` is live.
    let status = unsafe { tool(user, ptr, arguments.as_ptr().cast(), len) };
    let _ = handles::check(ptr as usize, Kind::ToolCtx, true);
    status
}

/// Ends the run as the tool's status `played` says, writing what to send;
/// the tool's own failure goes to `*own`.
///
/// # Safety
/// As `mrtr_run_tool`.
#[allow(clippy::too_many_arguments)]
unsafe fn finish(
    ctx: &mut mrtr_tool_ctx,
    played: mrtr_status,
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    own: &mut mrtr_status,
    response: *mut mrtr_buf,
    http_status: *mut u16,
    refusal: *mut mrtr_status,
) -> Result<(), Error> {
    // SAFETY: the caller's contract, passed on.
    let (out, r) = unsafe { (Out::new(response)?, args::read(rounds, "rounds")?) };
    let ended = match played {
        MRTR_OK | MRTR_TOOL_STOP => {
            let result = if played == MRTR_OK { ctx.result.as_deref() } else { None };
            // SAFETY: the caller's contract: a live ring.
            let ring = unsafe { reading(ring) }?;
            ctx.run.respond(&ring, result, Randomness::Os)
        }
        _ => match ctx.run.refused() {
            Ok(()) => {
                *own = played; // the tool's own failure, as it was
                return Ok(());
            }
            Err(e) => Err(e),
        },
    };
    // SAFETY: the caller's contract: readable `limits`.
    let sent = sent(ended, &ctx.run, &unsafe { options(r.protocol, r.limits, None) }?)?;
    // SAFETY: the caller promises the out pointers are writable.
    unsafe { (write(http_status, sent.status, "http_status")?, write(refusal, sent.refusal, "refusal")?) };
    out.set(sent.response);
    Ok(())
}

/// What to send for the run's end: its response, or its refusal's error
/// response; an error the run did not record (a result that is no JSON) is
/// the host's failure.
fn sent(ended: Result<String, Error>, run: &facade::ToolRun, options: &facade::Options) -> Result<Sent, Error> {
    let error = match ended {
        Ok(response) => return Ok(Sent { response, status: 200, refusal: MRTR_OK }),
        Err(e) => e,
    };
    let Some(built) = run.refusal_response(options) else { return Err(error) };
    let mut built: serde_json::Value = serde_json::from_str(&built).map_err(|e| usage(e.to_string()))?;
    let status = built["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(500);
    Ok(Sent { response: built["response"].take().to_string(), status, refusal: mrtr_status::from(error.rule() as u16) })
}

/// Asks `question` (an input request, JSON text), under `key` when given
/// (NULL: the key of its order): `MRTR_OK` with the client's answer in
/// `*answer` (free it with `mrtr_buf_free`); `MRTR_TOOL_STOP` when the
/// request holds none (return it: the round ends here); or the refusal's rule,
/// which ends the run whatever the tool does next.
///
/// # Safety
/// `ctx` is the context `mrtr_run_tool` gave the running tool; each
/// `(pointer, length)` is valid; `answer` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_ask(
    ctx: *mut mrtr_tool_ctx,
    question: *const c_char,
    question_len: usize,
    key: *const c_char,
    key_len: usize,
    answer: *mut mrtr_buf,
) -> mrtr_status {
    answered(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (out, ctx, question, key) = unsafe {
            (
                Out::new(answer)?,
                get_mut(ctx, "ctx")?,
                args::required(question, question_len, "question")?,
                args::optional_text(key, key_len, "key")?,
            )
        };
        Ok((out, ctx.run.ask(question, key)?))
    })
}

/// Asks the form elicitation `message`, its answer shaped by
/// `requested_schema` (JSON text), as `mrtr_tool_ask` does.
///
/// # Safety
/// As `mrtr_tool_ask`.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_ask_elicit(
    ctx: *mut mrtr_tool_ctx,
    message: *const c_char,
    message_len: usize,
    requested_schema: *const c_char,
    requested_schema_len: usize,
    answer: *mut mrtr_buf,
) -> mrtr_status {
    answered(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (out, ctx, message, schema) = unsafe {
            (
                Out::new(answer)?,
                get_mut(ctx, "ctx")?,
                args::text(message, message_len, "message")?,
                args::required(requested_schema, requested_schema_len, "requested_schema")?,
            )
        };
        Ok((out, ctx.run.ask_elicit(message, schema, None)?))
    })
}

/// An ask's status: its answer handed over, or `MRTR_TOOL_STOP` (the run
/// then asks nothing more), or its failure.
fn answered(ask: impl FnOnce() -> Result<(Out, Option<String>), Error>) -> mrtr_status {
    let mut stopped = false;
    let status = guard(|| {
        let (out, answer) = ask()?;
        match answer {
            Some(answer) => out.set(answer),
            None => stopped = true,
        }
        Ok(())
    });
    if status == MRTR_OK && stopped {
        MRTR_TOOL_STOP
    } else {
        status
    }
}

/// The tool's result (JSON text, copied): set it, then return `MRTR_OK`.
/// Read when the run ends (a result that is no JSON fails `mrtr_run_tool`).
///
/// # Safety
/// `ctx` is the context `mrtr_run_tool` gave the running tool; `(result,
/// result_len)` is valid.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_result(
    ctx: *mut mrtr_tool_ctx,
    result: *const c_char,
    result_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (ctx, result) = unsafe { (get_mut(ctx, "ctx")?, args::required(result, result_len, "result")?) };
        ctx.result = Some(result.to_vec());
        Ok(())
    })
}

/// How many `input_required` rounds came before this request (0 on a first one).
///
/// # Safety
/// `ctx` is the context `mrtr_run_tool` gave the running tool; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_round(ctx: *const mrtr_tool_ctx, out: *mut u32) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let ctx = unsafe { get(ctx, "ctx")? };
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, ctx.run.round(), "out") }
    })
}

/// The data the next round gets: what the tool set, else what the last
/// round kept; `{NULL, 0}` for none (free it with `mrtr_buf_free`).
///
/// # Safety
/// `ctx` is the context `mrtr_run_tool` gave the running tool; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_data(ctx: *const mrtr_tool_ctx, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (out, ctx) = unsafe { (Out::new(out)?, get(ctx, "ctx")?) };
        if let Some(data) = ctx.run.data() {
            out.set(data);
        }
        Ok(())
    })
}

/// Keeps `data` (JSON text; NULL: nothing) for the next round, sealed with
/// it, in place of the last round's.
///
/// # Safety
/// `ctx` is the context `mrtr_run_tool` gave the running tool; `(data, data_len)` is valid.
#[no_mangle]
pub unsafe extern "C" fn mrtr_tool_set_data(
    ctx: *mut mrtr_tool_ctx,
    data: *const c_char,
    data_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract (`# Safety`), passed on.
        let (ctx, data) = unsafe { (get_mut(ctx, "ctx")?, args::optional(data, data_len, "data")?) };
        ctx.run.set_data(data);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_gives_the_stop_status_only_when_no_answer_came() {
        let mut buf = mrtr_buf::EMPTY;
        // SAFETY: `buf` is a local buffer, writable for the whole call.
        assert_eq!(answered(|| Ok((unsafe { Out::new(&mut buf) }?, None))), MRTR_TOOL_STOP);
        assert!(buf.ptr.is_null());
        // SAFETY: as above.
        assert_eq!(answered(|| Ok((unsafe { Out::new(&mut buf) }?, Some("{}".into())))), MRTR_OK);
        assert_eq!(buf.len, 2);
        // SAFETY: the buffer the library just filled.
        assert_eq!(unsafe { crate::buf::mrtr_buf_free(&mut buf) }, MRTR_OK);
        assert_eq!(answered(|| Err(usage("nothing"))), mrtr::RuleId::UsageInvalidArgument as i32);
    }

    #[test]
    fn a_context_of_no_run_is_refused() {
        // SAFETY: NULL handles and outputs are refused before any dereference.
        let asked = unsafe {
            mrtr_tool_ask(std::ptr::null_mut(), c"{}".as_ptr(), 2, std::ptr::null(), 0, std::ptr::null_mut())
        };
        assert_eq!(asked, mrtr::RuleId::UsageInvalidArgument as i32);
    }
}
