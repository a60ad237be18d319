/// What went wrong, as a growable code: every module's one error struct (STYLE.md §3.7)
/// declares `typealias Code = ErrorCode<Self>` and its codes as static members of an
/// `extension ErrorCode where Domain == ThatError`. Clients compare codes with `==` or match
/// them in a `switch` with a `default`, so a code added later breaks no client (NIO's
/// `FileSystemError.Code`, ArgumentParser's `CleanExit.Representation`).
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name as printed, e.g. "invalid latitude".
    public let description: String

    /// A code of `Domain`; only the module that owns `Domain` makes them.
    package init(_ description: String) { self.description = description }
}

/// The one error type of a module whose errors carry nothing but a code and a message
/// (GeoCore, Routing, TrackFiltering): the module declares an empty domain and
/// `public typealias TheError = CodedError<TheDomain>`, then its codes in
/// `extension ErrorCode where Domain == TheError`. Modules whose errors carry more (a location,
/// an `errno`, an underlying error) declare their own struct with `ErrorCode<Self>`.
public struct CodedError<Domain>: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code.
    public typealias Code = ErrorCode<CodedError<Domain>>

    public var code: Code
    /// A human explanation naming the value at fault.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
