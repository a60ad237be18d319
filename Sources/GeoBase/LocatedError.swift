/// The one error type of a module whose errors name where in the input they are, as text: a
/// file and line (`trace.csv:3`), a JSON path (`$.locations[3].geometry`), a parameter or a
/// byte offset (`byte 27, record 1`). The module declares an empty domain and
/// `public typealias TheError = LocatedError<TheDomain>`, then its codes in
/// `extension ErrorCode where Domain == TheError` (STYLE.md §3.7). Modules whose errors carry
/// a structured location (line, column, offset) declare their own struct.
public struct LocatedError<Domain>: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code.
    public typealias Code = ErrorCode<LocatedError<Domain>>

    public var code: Code
    /// A human explanation naming the value at fault.
    public var message: String
    /// Where in the input.
    public var location: String

    public init(_ code: Code, _ message: String, at location: String) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String { "\(code) at \(location): \(message)" }
}
