//! Input requests (`inputRequests`) and input responses (`inputResponses`):
//! their shapes, and whether a response fits the request it answers.

use crate::{
    error::{err, Result},
    form,
    limits::Limits,
    protocol::{ElicitationIdRule, Protocol},
    view::{CapabilitiesView, InputParamsView, InputRequestView, Map, Obj, Prim, ResponseView, WrappedResponseView},
};

/// The kind of an input request, by its `method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `elicitation/create` in form mode.
    ElicitForm,
    /// `elicitation/create` in URL mode.
    ElicitUrl,
    /// `sampling/createMessage`.
    Sampling,
    /// `roots/list`.
    Roots,
}

impl InputKind {
    /// The JSON-RPC method of this kind.
    pub fn method(self) -> &'static str {
        match self {
            InputKind::ElicitForm | InputKind::ElicitUrl => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }

    /// The kind of a (syntactically valid) input request.
    pub(crate) fn of(request: &InputRequestView<'_>) -> Option<InputKind> {
        match request.method.as_str()? {
            "elicitation/create" => match request.params.get().map(|p| &p.mode) {
                Some(Prim::Str(m)) if m == "url" => Some(InputKind::ElicitUrl),
                _ => Some(InputKind::ElicitForm),
            },
            "sampling/createMessage" => Some(InputKind::Sampling),
            "roots/list" => Some(InputKind::Roots),
            _ => None,
        }
    }

    /// Whether the per-request capabilities declare this kind.
    pub(crate) fn declared_in(self, caps: &CapabilitiesView<'_>) -> bool {
        let elicitation = caps.elicitation.get();
        match self {
            InputKind::ElicitForm => elicitation.is_some_and(|e| e.form.is_present() || e.url.is_absent()),
            InputKind::ElicitUrl => elicitation.is_some_and(|e| e.url.is_present()),
            InputKind::Sampling => caps.sampling.is_present() && !matches!(caps.sampling, Prim::Null),
            InputKind::Roots => caps.roots.is_present() && !matches!(caps.roots, Prim::Null),
        }
    }
}

/// Checks an `inputRequests` map: an object, within bounds, without duplicate
/// keys, each value a valid input request for `protocol`.
pub(crate) fn validate_requests(
    requests: &Map<'_, Obj<InputRequestView<'_>>>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<()> {
    let Some(entries) = requests.entries() else {
        return Err(err!(InputRequestInvalid, "inputRequests must be an object"));
    };
    if entries.len() > limits.max_input_requests {
        return Err(err!(
            LimitExceeded,
            "inputRequests has {} entries, over the bound of {}",
            entries.len(),
            limits.max_input_requests
        ));
    }
    if let Some(key) = requests.duplicate_key() {
        return Err(err!(JsonrpcInvalid, "inputRequests has the key {key:?} twice"));
    }
    entries.iter().try_for_each(|(key, request)| match request {
        Obj::Present(request) => validate_request(key, request, protocol),
        _ => Err(err!(InputRequestInvalid, "inputRequests[{key:?}] must be an object")),
    })
}

/// Checks one input request.
pub(crate) fn validate_request(key: &str, request: &InputRequestView<'_>, protocol: Protocol) -> Result<()> {
    if request.jsonrpc.is_present() || request.id.is_present() {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}] must not carry jsonrpc or id"));
    }
    let Some(method) = request.method.as_str() else {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}].method must be a string"));
    };
    let params = match (&request.params, method) {
        (Obj::Present(p), _) => p,
        (Obj::Absent, "roots/list") => return Ok(()),
        _ => return Err(err!(InputRequestInvalid, "inputRequests[{key:?}].params must be an object")),
    };
    match method {
        "elicitation/create" => validate_elicitation(key, params, protocol),
        "sampling/createMessage" => validate_sampling(key, params),
        "roots/list" => Ok(()),
        other => Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: {other:?} is not an input request method")),
    }
}

fn validate_elicitation(key: &str, p: &InputParamsView<'_>, protocol: Protocol) -> Result<()> {
    if p.message.as_str().is_none() {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: elicitation needs a string message"));
    }
    match &p.mode {
        Prim::Absent => validate_form(key, p),
        Prim::Str(m) if m == "form" => validate_form(key, p),
        Prim::Str(m) if m == "url" => validate_url(key, p, protocol),
        _ => Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: elicitation mode must be \"form\" or \"url\"")),
    }
}

fn validate_form(key: &str, p: &InputParamsView<'_>) -> Result<()> {
    match &p.requested_schema {
        Obj::Present(schema) => form::validate_schema(key, schema),
        _ => Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: form elicitation needs a requestedSchema object")),
    }
}

fn validate_url(key: &str, p: &InputParamsView<'_>, protocol: Protocol) -> Result<()> {
    if p.url.as_str().is_none() {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: url elicitation needs a string url"));
    }
    match (protocol.rules().elicitation_id, &p.elicitation_id) {
        (ElicitationIdRule::Forbidden, Prim::Absent) => Ok(()),
        (ElicitationIdRule::Forbidden, _) => {
            Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: url elicitation has no elicitationId in {protocol}"))
        }
        (ElicitationIdRule::Required, Prim::Str(_)) => Ok(()),
        (ElicitationIdRule::Required, _) => Err(err!(
            InputRequestInvalid,
            "inputRequests[{key:?}]: url elicitation needs a string elicitationId in {protocol}"
        )),
    }
}

fn validate_sampling(key: &str, p: &InputParamsView<'_>) -> Result<()> {
    let Some(messages) = p.messages.get() else {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: sampling needs a messages array"));
    };
    let message_ok = |m: &Obj<crate::view::SamplingMessageView<'_>>| {
        m.get().is_some_and(|m| {
            matches!(m.role.as_str(), Some("user" | "assistant")) && matches!(m.content, Prim::Object | Prim::Array(_))
        })
    };
    if !messages.iter().all(message_ok) {
        return Err(err!(
            InputRequestInvalid,
            "inputRequests[{key:?}]: each sampling message needs a role and content"
        ));
    }
    if !p.max_tokens.is_integer() {
        return Err(err!(InputRequestInvalid, "inputRequests[{key:?}]: sampling needs an integer maxTokens"));
    }
    Ok(())
}

/// Checks that an `inputResponses` map is an object of objects within bounds.
pub(crate) fn validate_responses_shape(responses: &Map<'_, Obj<ResponseView<'_>>>, limits: &Limits) -> Result<()> {
    let Some(entries) = responses.entries() else {
        return Err(err!(InputResponsesMalformed, "inputResponses must be an object"));
    };
    check_response_entries(entries.len(), responses.duplicate_key(), limits)?;
    match entries.iter().find(|(_, v)| !matches!(v, Obj::Present(_))) {
        Some((key, _)) => Err(err!(InputResponsesMalformed, "inputResponses[{key:?}] must be an object")),
        None => Ok(()),
    }
}

/// The draft dialect's `input_responses`: an object of `{"result": {…}}`.
pub(crate) fn validate_wrapped_shape(responses: &Map<'_, Obj<WrappedResponseView<'_>>>, limits: &Limits) -> Result<()> {
    let Some(entries) = responses.entries() else {
        return Err(err!(InputResponsesMalformed, "input_responses must be an object"));
    };
    check_response_entries(entries.len(), responses.duplicate_key(), limits)?;
    match entries.iter().find(|(_, v)| !matches!(v.get().map(|w| &w.result), Some(Obj::Present(_)))) {
        Some((key, _)) => Err(err!(InputResponsesMalformed, "input_responses[{key:?}] must be {{\"result\": {{…}}}}")),
        None => Ok(()),
    }
}

fn check_response_entries(len: usize, duplicate: Option<&str>, limits: &Limits) -> Result<()> {
    if len > limits.max_input_requests {
        return Err(err!(
            LimitExceeded,
            "inputResponses has {len} entries, over the bound of {}",
            limits.max_input_requests
        ));
    }
    match duplicate {
        Some(key) => Err(err!(JsonrpcInvalid, "inputResponses has the key {key:?} twice")),
        None => Ok(()),
    }
}

/// Checks that `response` fits `request` (both under `key`).
pub(crate) fn validate_response(key: &str, response: &ResponseView<'_>, request: &InputRequestView<'_>) -> Result<()> {
    match InputKind::of(request) {
        Some(InputKind::ElicitForm) => validate_elicit_result(key, response, request.params.get()),
        Some(InputKind::ElicitUrl) => validate_elicit_result(key, response, None),
        Some(InputKind::Sampling) => validate_sampling_result(key, response),
        Some(InputKind::Roots) => validate_roots_result(key, response),
        None => Err(err!(InputRequestInvalid, "inputRequests[{key:?}] has no known method")),
    }
}

fn validate_elicit_result(key: &str, r: &ResponseView<'_>, form: Option<&InputParamsView<'_>>) -> Result<()> {
    match r.action.as_str() {
        Some("accept") => {}
        Some("decline" | "cancel") if r.content.is_absent() => return Ok(()),
        Some("decline" | "cancel") => {
            return Err(err!(
                RetryInputResponseInvalid,
                "inputResponses[{key:?}]: content only goes with action \"accept\""
            ))
        }
        _ => {
            return Err(err!(
                RetryInputResponseInvalid,
                "inputResponses[{key:?}]: action must be accept, decline or cancel"
            ))
        }
    }
    match (form.and_then(|f| f.requested_schema.get()), r.content.is_absent()) {
        (_, true) => Ok(()),
        (Some(schema), false) => form::validate_content(key, &r.content, schema),
        (None, false) => {
            Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: a url elicitation's answer has no content"))
        }
    }
}

fn validate_sampling_result(key: &str, r: &ResponseView<'_>) -> Result<()> {
    let role_ok = matches!(r.role.as_str(), Some("user" | "assistant"));
    let content_ok = matches!(r.content, Map::Entries(_) | Map::Array);
    if role_ok && content_ok && r.model.as_str().is_some() {
        Ok(())
    } else {
        Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: a sampling answer needs role, content and model"))
    }
}

fn validate_roots_result(key: &str, r: &ResponseView<'_>) -> Result<()> {
    let Some(roots) = r.roots.get() else {
        return Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: a roots answer needs a roots array"));
    };
    let root_ok = |root: &Obj<crate::view::RootView<'_>>| {
        root.get().and_then(|r| r.uri.as_str()).is_some_and(|u| u.starts_with("file://"))
    };
    if roots.iter().all(root_ok) {
        Ok(())
    } else {
        Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: each root needs a file:// uri"))
    }
}
