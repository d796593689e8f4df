//! What one message is ([`Kind`]) and the `resultType` a result declared
//! ([`ResultType`]): the outcome of `classify` on both paths, with or without
//! an allocator, so they are one type in `mrtr` and `mrtr::bare`.

/// What a message is. `Kind as u8` is stable (the C ABI's `mrtr_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request = 1,
    /// A notification: `method`, no `id`.
    Notification = 2,
    /// A result that is not `input_required` (complete, task, or untyped).
    Result = 3,
    /// A result with `resultType: "input_required"` (or the draft's envelope fields).
    InputRequired = 4,
    /// An error response.
    Error = 5,
}

impl Kind {
    /// Every kind, in the order of their stable numbers (`Kind as u8`).
    pub const ALL: [Kind; 5] = [Kind::Request, Kind::Notification, Kind::Result, Kind::InputRequired, Kind::Error];

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The name the conformance corpus uses.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Result => "result",
            Kind::InputRequired => "input_required",
            Kind::Error => "error",
        }
    }
}

/// The `resultType` a result declared, as the protocol reads it. `ResultType
/// as u8` is stable (the C ABI's `mrtr_result_type`; 0 there means none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ResultType {
    /// `"complete"`, or absent (read as complete).
    Complete = 1,
    /// `"input_required"`.
    InputRequired = 2,
    /// `"task"` (the Tasks extension).
    Task = 3,
}

impl ResultType {
    /// Every result type, in the order of their numbers (`ResultType as u8`).
    pub const ALL: [ResultType; 3] = [ResultType::Complete, ResultType::InputRequired, ResultType::Task];

    /// The wire value of `resultType`.
    pub const fn name(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }

    /// The result type with this wire value.
    pub fn from_name(name: &str) -> Option<ResultType> {
        ResultType::ALL.into_iter().find(|t| t.name() == name)
    }
}
