//! Input requests (`inputRequests`) and input responses (`inputResponses`):
//! their shapes, and whether a response fits the request it answers.

use crate::{
    base::error::{err, Result},
    base::limits::Limits,
    base::protocol::Protocol,
    read::validate,
    read::view::{CapabilitiesView, InputParamsView, InputRequestView, Map, Obj, Prim, ResponseView},
    request::form,
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

    /// Whether the per-request capabilities declare what `request` (of this
    /// kind) needs: a sampling request that offers `tools` or `toolChoice`
    /// needs `sampling.tools` besides `sampling`.
    pub(crate) fn declared_in(self, request: &InputRequestView<'_>, caps: &CapabilitiesView<'_>) -> bool {
        let elicitation = caps.elicitation.get();
        let declared = |p: &Prim<'_>| p.is_present() && !matches!(p, Prim::Null);
        match self {
            InputKind::ElicitForm => elicitation.is_some_and(|e| e.form.is_present() || e.url.is_absent()),
            InputKind::ElicitUrl => elicitation.is_some_and(|e| e.url.is_present()),
            InputKind::Sampling if uses_tools(request) => {
                caps.sampling_detail.get().is_some_and(|s| declared(&s.tools))
            }
            InputKind::Sampling => declared(&caps.sampling),
            InputKind::Roots => declared(&caps.roots),
        }
    }

    /// The client capabilities (a `ClientCapabilities` object) `request` of
    /// this kind needs: what a -32021 refusal names in `requiredCapabilities`.
    pub(crate) fn required_capabilities(self, request: &InputRequestView<'_>) -> serde_json::Value {
        use serde_json::json;
        match self {
            InputKind::ElicitForm => json!({"elicitation": {"form": {}}}),
            InputKind::ElicitUrl => json!({"elicitation": {"url": {}}}),
            InputKind::Sampling if uses_tools(request) => json!({"sampling": {"tools": {}}}),
            InputKind::Sampling => json!({"sampling": {}}),
            InputKind::Roots => json!({"roots": {}}),
        }
    }
}

/// A sampling request that lets the model call tools (2026-07-28 `client/sampling`).
fn uses_tools(request: &InputRequestView<'_>) -> bool {
    request.params.get().is_some_and(|p| p.tools.is_present() || p.tool_choice.is_present())
}

/// Checks an `inputRequests` map (`validate::input_requests`).
pub(crate) fn validate_requests(
    requests: &Map<'_, Obj<InputRequestView<'_>>>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<()> {
    validate::input_requests(requests.node(), protocol, limits)
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

/// Checks what can be read of `response` against a question that is itself
/// invalid (the server's fault, reported with it): by the question's kind
/// alone (its method, an elicitation's mode), never by the schema that may be
/// what is wrong with it. The answer's own fault is reported; none that the
/// question caused is.
pub(crate) fn validate_response_by_kind(
    key: &str,
    response: &ResponseView<'_>,
    request: &InputRequestView<'_>,
) -> Result<()> {
    match InputKind::of(request) {
        Some(InputKind::ElicitForm) => validate_elicit_action(key, response).map(|_| ()),
        Some(InputKind::ElicitUrl) => validate_elicit_result(key, response, None),
        Some(InputKind::Sampling) => validate_sampling_result(key, response),
        Some(InputKind::Roots) => validate_roots_result(key, response),
        None => Ok(()),
    }
}

/// An elicitation answer's action, and content only with `accept`: whether it accepted.
fn validate_elicit_action(key: &str, r: &ResponseView<'_>) -> Result<bool> {
    match r.action.as_str() {
        Some("accept") => Ok(true),
        Some("decline" | "cancel") if r.content.is_absent() => Ok(false),
        Some("decline" | "cancel") => {
            Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: content only goes with action \"accept\""))
        }
        _ => Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: action must be accept, decline or cancel")),
    }
}

fn validate_elicit_result(key: &str, r: &ResponseView<'_>, form: Option<&InputParamsView<'_>>) -> Result<()> {
    if !validate_elicit_action(key, r)? {
        return Ok(());
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
    let content_ok = matches!(r.content, Map::Entries(..) | Map::Array(_));
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
    let root_ok = |root: &Obj<crate::read::view::RootView<'_>>| {
        root.get().and_then(|r| r.uri.as_str()).is_some_and(|u| u.starts_with("file://"))
    };
    if roots.iter().all(root_ok) {
        Ok(())
    } else {
        Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: each root needs a file:// uri"))
    }
}
