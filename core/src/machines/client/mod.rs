//! The client side: build the retry that answers an `input_required` result
//! ([`retry`]), let the [`Client`] machine track rounds for you, or let an
//! [`Operation`] carry one whole call over HTTP in any transport mode.

pub mod operation;
pub mod repeat;
pub mod session;

pub use operation::Operation;
pub use session::{Session, SessionConfig};

use crate::{
    base::error::Error,
    base::error::{err, Result},
    base::limits::Limits,
    base::protocol::{Protocol, TasksFlavor, META_RELATED_TASK},
    one_message::envelope::{self, Kind},
    read::view::{Obj, J},
    request::dialect::{from_sep_in, to_sep_in},
    request::input,
    request::message,
    request::message::{read_responses, read_view},
    request::retry::{self, Requests, Responses},
};
use alloc::{collections::VecDeque, vec::Vec};
use serde_json::{json, Value};

/// The `notifications/cancelled` a client sends when it gives up the
/// request `request_id` (the result will be unused: the server should stop
/// its work and send no response). A notification carries no `_meta`
/// version; its HTTP header fields are `mirrored_fields`' as for any message.
pub fn cancelled(request_id: &Value, reason: Option<&str>) -> Value {
    let mut params = serde_json::Map::new();
    params.insert("requestId".into(), request_id.clone());
    if let Some(reason) = reason {
        params.insert("reason".into(), reason.into());
    }
    serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
}

/// Builds the retry of `request` that answers `result` (the response message
/// carrying `input_required`) with `input_responses`, under the new `id`.
///
/// The retry carries only the responses to the latest `inputRequests` and the
/// latest `requestState`; everything else of `request` (`arguments`, `_meta`,
/// unknown fields) is kept. In `sep-2322`, the answer to `tasks/result` is a
/// `tasks/input_response` request instead.
pub fn retry(
    request: &Value,
    result: &Value,
    input_responses: &Value,
    id: &Value,
    protocol: Protocol,
    limits: &Limits,
) -> Result<Value> {
    build_retry(request, result, input_responses, id, protocol, limits, Answers::Unchecked)
}

/// Whether [`build_retry`] still checks each answer against its question.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answers {
    /// Check them (every answer, nothing else, each fitting its question).
    Unchecked,
    /// The caller checked each one as it came ([`check_answer`]) and that
    /// every question has one: only their shape as a whole is read.
    Checked,
}

/// [`retry`], with the answers' check left to a caller that made it already.
pub(crate) fn build_retry(
    request: &Value,
    result: &Value,
    input_responses: &Value,
    id: &Value,
    protocol: Protocol,
    limits: &Limits,
    answers: Answers,
) -> Result<Value> {
    let (request, result) = (to_sep_in(request, protocol), to_sep_in(result, protocol));
    let view = message::read_request(&request)?;
    // A caller that checked the answers judged the result already (a
    // lenient one read on past its content's faults): only its kind matters.
    let answered = match answers {
        Answers::Unchecked => envelope::classify_value(&result, protocol, limits)?,
        Answers::Checked => envelope::classify_value_into(&result, protocol, limits, &mut Vec::new())?,
    };
    if answered.kind != Kind::InputRequired || result.get("id") != request.get("id") {
        return Err(err!(InputResponsesUnsolicited, "the result does not answer this request with input_required"));
    }
    let method = view.method.as_str().unwrap_or_default();
    if !protocol.allows_input_required(method) {
        return Err(err!(
            InputRequiredMethodNotAllowed,
            "{method:?} may not be answered with input_required in {protocol}"
        ));
    }
    message::check_id(id)?;
    retry::id_reused(id, request.get("id"), false)?;
    let responses = read_responses(input_responses, limits)?;
    if answers == Answers::Unchecked {
        check_answers(&input_requests_of(&result)?, &responses)?;
    }
    let state = result["result"].get("requestState").cloned();
    let built = if method == "tasks/result" && protocol.rules().tasks == TasksFlavor::Core {
        task_input_response(&request, input_responses, id)
    } else {
        rebuild(&request, input_responses, state, id)
    };
    Ok(from_sep_in(built, protocol))
}

fn input_requests_of(result: &Value) -> Result<Requests<'_>> {
    match result["result"].get("inputRequests") {
        Some(r) => read_view(r),
        None => Ok(Requests::Absent),
    }
}

/// Every request answered, nothing else, each answer fitting its request.
fn check_answers(requests: &Requests<'_>, responses: &Responses<'_>) -> Result<()> {
    retry::missing_input_response(requests, responses, &|_| true)?;
    let given = responses.entries().unwrap_or_default();
    if let Some((key, _)) = given.iter().find(|(k, _)| requests.get(k).is_none()) {
        return Err(err!(InputResponsesUnsolicited, "inputResponses[{key:?}] answers nothing the server asked"));
    }
    for (key, response) in given {
        if let (Some(Obj::Present(request)), Obj::Present(response)) = (requests.get(key), response) {
            input::validate_response(key, response, request)?;
        }
    }
    Ok(())
}

/// Whether `question` (`{"method", "params"}`) is a sound input request:
/// an answer to one that is not is judged by the question's kind alone
/// ([`check_answer_by_kind`]), the checker's reading: the question's fault is
/// the server's, reported with its result, and the answer's own is its own.
pub(crate) fn sound_question(key: &str, question: &Value, protocol: Protocol) -> bool {
    crate::read::validate::input_request(J::Key(key), J::Value(question), protocol).is_ok()
}

/// One answer checked against the question it answers (`{"method",
/// "params"}`), as [`retry`] checks every answer of a round.
pub(crate) fn check_answer(key: &str, question: &Value, answer: &Value, limits: &Limits) -> Result<()> {
    let (questions, answers) = (json!({ key: question }), json!({ key: answer }));
    let requests: Requests<'_> = read_view(&questions)?;
    check_answers(&requests, &read_responses(&answers, limits)?)
}

/// One answer checked against what can be read of a question that is
/// itself faulty: its kind (method, an elicitation's mode), never its schema
/// (`input::validate_response_by_kind`).
pub(crate) fn check_answer_by_kind(key: &str, question: &Value, answer: &Value, limits: &Limits) -> Result<()> {
    let answers = json!({ key: answer });
    let responses = read_responses(&answers, limits)?;
    let (Ok(request), Some(Obj::Present(response))) = (read_view(question), responses.get(key)) else { return Ok(()) };
    input::validate_response_by_kind(key, response, &request)
}

fn rebuild(request: &Value, responses: &Value, state: Option<Value>, id: &Value) -> Value {
    let mut retry = request.clone();
    retry["id"] = id.clone();
    let params =
        retry.as_object_mut().map(|o| o.entry("params").or_insert_with(|| json!({}))).and_then(Value::as_object_mut);
    if let Some(params) = params {
        params.shift_remove("inputResponses");
        params.shift_remove("requestState");
        if responses.as_object().is_some_and(|r| !r.is_empty()) {
            params.insert("inputResponses".into(), responses.clone());
        }
        if let Some(state) = state {
            params.insert("requestState".into(), state);
        }
    }
    retry
}

fn task_input_response(request: &Value, responses: &Value, id: &Value) -> Value {
    let task_id = request["params"]["taskId"].clone();
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tasks/input_response",
        "params": {
            "inputResponses": responses,
            "_meta": { META_RELATED_TASK: { "taskId": task_id } }
        }
    })
}

/// Builds the `tasks/update` request that answers an `input_required` task of
/// the Tasks extension (`2026-07-28`): `get_response` is the `tasks/get`
/// answer showing the task with its `inputRequests`, `get_request` the request
/// it answered (its `_meta` is carried over). Every request is answered, nothing
/// else, each answer fitting its request.
pub fn task_update(
    get_request: &Value,
    get_response: &Value,
    input_responses: &Value,
    id: &Value,
    limits: &Limits,
) -> Result<Value> {
    let protocol = Protocol::of_tasks_extension();
    message::read_request(get_request)?;
    envelope::classify_value(get_response, protocol, limits)?;
    let task = &get_response["result"];
    if task.get("status").and_then(Value::as_str) != Some("input_required") {
        return Err(err!(InputResponsesUnsolicited, "the task is not waiting for input"));
    }
    let Some(task_id) = task.get("taskId").and_then(Value::as_str) else {
        return Err(err!(TaskInputResponseWithoutTask, "the tasks/get answer names no taskId"));
    };
    let Some(requests) = task.get("inputRequests") else {
        return Err(err!(TaskInputRequestsMissing, "an input_required task shows its inputRequests"));
    };
    let requests = read_view(requests)?;
    input::validate_requests(&requests, protocol, limits)?;
    message::check_id(id)?;
    retry::id_reused(id, get_request.get("id"), false)?;
    let responses = read_responses(input_responses, limits)?;
    check_answers(&requests, &responses)?;
    let mut params = json!({ "taskId": task_id, "inputResponses": input_responses });
    if let Some(meta) = get_request["params"].get("_meta") {
        params["_meta"] = meta.clone();
    }
    Ok(json!({ "jsonrpc": "2.0", "id": id, "method": "tasks/update", "params": params }))
}

/// Settings of the [`Client`] machine: the protocol negotiated with the
/// server, the bounds on what it reads, and the retries allowed per request
/// before `retry-rounds-exceeded` ([`DEFAULT_MAX_ROUNDS`](crate::base::settings::DEFAULT_MAX_ROUNDS),
/// as the official SDKs). The machine reads no other setting.
pub type ClientConfig = crate::base::settings::Settings;

/// A request the host started, named by the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(pub u64);

/// What the machine tells the host.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The server needs input: fulfil `input_requests` (an `inputRequests`
    /// object), then call [`Client::answer`].
    InputRequired {
        /// The request.
        handle: Handle,
        /// What the server asks, by key.
        input_requests: Value,
        /// Retries made so far for this request.
        round: u32,
    },
    /// The server shed load (`input_required` with state only): call
    /// [`Client::answer`] at once with no responses.
    RetryNow {
        /// The request.
        handle: Handle,
    },
    /// The request is finished: a complete result, a task, or an error.
    Done {
        /// The request.
        handle: Handle,
        /// The final response message.
        response: Value,
    },
}

struct Outstanding {
    handle: Handle,
    sent: Value,
    answered: Option<Value>,
    rounds: u32,
}

/// The client's retry machine (sans-IO).
///
/// Inputs: [`send`](Client::send) a request, [`handle_response`](Client::handle_response)
/// for each response, [`answer`](Client::answer) input requests. Outputs: after
/// every input, drain [`poll_transmit`](Client::poll_transmit) first (messages
/// to send, in order), then [`poll_event`](Client::poll_event). The machine
/// enforces every client retry rule: new ids, unchanged params, complete and
/// valid answers, the exact `requestState`, and the round bound.
pub struct Client {
    config: ClientConfig,
    next_handle: u64,
    outstanding: Vec<Outstanding>,
    transmits: VecDeque<Value>,
    events: VecDeque<Event>,
}

impl Client {
    /// A machine with `config`.
    pub fn new(config: ClientConfig) -> Client {
        Client { config, next_handle: 0, outstanding: Vec::new(), transmits: VecDeque::new(), events: VecDeque::new() }
    }

    /// Starts `request`. A fresh request carries no `inputResponses` or
    /// `requestState` (`input-responses-unsolicited`), and its id is not in
    /// flight (`retry-id-reused`).
    pub fn send(&mut self, request: Value) -> Result<Handle> {
        let protocol = self.config.protocol;
        let sep = to_sep_in(&request, protocol);
        let view = message::read_request(&sep)?;
        if let Some(p) = view.params.get() {
            if p.input_responses.is_present() || p.request_state.is_present() {
                return Err(err!(InputResponsesUnsolicited, "a new request carries no inputResponses or requestState"));
            }
        }
        self.check_fresh_id(&request["id"])?;
        let handle = Handle(self.next_handle);
        self.next_handle += 1;
        self.transmits.push_back(request.clone());
        self.outstanding.push(Outstanding { handle, sent: request, answered: None, rounds: 0 });
        Ok(handle)
    }

    /// Takes a response message from the server.
    pub fn handle_response(&mut self, response: &[u8]) -> Result<()> {
        let limits = self.config.limits;
        envelope::classify(response, self.config.protocol, &limits)?;
        let response: Value = serde_json::from_slice(response).map_err(envelope::json_error)?;
        self.handle_response_value(response)
    }

    /// Takes a response already parsed.
    pub fn handle_response_value(&mut self, response: Value) -> Result<()> {
        let protocol = self.config.protocol;
        let c = envelope::classify_value(&response, protocol, &self.config.limits)?;
        let kind = c.kind;
        let Some(i) =
            self.outstanding.iter().position(|o| o.answered.is_none() && o.sent.get("id") == response.get("id"))
        else {
            return Err(err!(UsageOutOfTurn, "a response to no request in flight"));
        };
        let handle = self.outstanding[i].handle;
        if kind != Kind::InputRequired {
            self.outstanding.remove(i);
            self.events.push_back(Event::Done { handle, response });
            return Ok(());
        }
        let sep = to_sep_in(&response, protocol);
        let requests = sep["result"].get("inputRequests").cloned();
        let round = self.outstanding[i].rounds;
        self.outstanding[i].answered = Some(response);
        self.events.push_back(match requests {
            Some(input_requests) => Event::InputRequired { handle, input_requests, round },
            None => Event::RetryNow { handle },
        });
        Ok(())
    }

    /// Answers the input requests of `handle` with `input_responses` (an
    /// `inputResponses` object) and queues the retry under the new `id`.
    pub fn answer(&mut self, handle: Handle, input_responses: &Value, id: Value) -> Result<()> {
        let Some(i) = self.outstanding.iter().position(|o| o.handle == handle) else {
            return Err(err!(UsageUnknownHandle, "no request in flight has this handle"));
        };
        let Some(answered) = &self.outstanding[i].answered else {
            return Err(err!(UsageOutOfTurn, "the server has not asked for input on this request"));
        };
        retry::rounds_exceeded(self.outstanding[i].rounds.saturating_add(1), self.config.max_rounds)?;
        self.check_fresh_id(&id)?;
        let o = &self.outstanding[i];
        let retry = retry(&o.sent, answered, input_responses, &id, self.config.protocol, &self.config.limits)?;
        let o = &mut self.outstanding[i];
        o.sent = retry.clone();
        o.answered = None;
        o.rounds += 1;
        self.transmits.push_back(retry);
        Ok(())
    }

    /// Gives up on `handle` (a client may always abandon a round).
    pub fn abandon(&mut self, handle: Handle) {
        self.outstanding.retain(|o| o.handle != handle);
    }

    /// The next message to send.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Value> {
        self.transmits.pop_front()
    }

    /// The next event for the host.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn check_fresh_id(&self, id: &Value) -> Result<(), Error> {
        message::check_id(id)?;
        retry::id_reused(id, None, self.outstanding.iter().any(|o| o.sent.get("id") == Some(id)))
    }
}
