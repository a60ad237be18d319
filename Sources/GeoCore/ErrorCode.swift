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
