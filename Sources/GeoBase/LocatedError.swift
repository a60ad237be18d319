/// The one error type of a module whose errors name where in the input they are, as text: a
/// file and line (`trace.csv:3`), a JSON path (`$.locations[3].geometry`), a parameter or a
/// byte offset (`byte 27, record 1`). The module declares an empty domain and
/// `public typealias TheError = LocatedError<TheDomain>`, then its codes in
/// `extension ErrorCode where Domain == TheError` (STYLE.md §3.7). Errors at a line, column and
/// byte offset of a text input are `PositionedError`s.
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

/// The one error type of a module whose errors are at a place in a text input, as a line, a
/// column and a byte offset (the XML scanner, the GPX reader). The module declares an empty
/// domain and `public typealias TheError = PositionedError<TheDomain, Underlying>`, then its
/// codes in `extension ErrorCode where Domain == TheError` (STYLE.md §3.7). `Underlying` is
/// the type of the byte source's own error, kept for an I/O failure.
///
/// `line` and `column` are 1-based; `column` counts bytes (UTF-8 code units) from the start
/// of the line. `offset` is the 0-based byte offset from the start of the input (a byte-order
/// mark counts).
public struct PositionedError<Domain, Underlying: Sendable>: Error, CustomStringConvertible {
    /// What went wrong: a growable code.
    public typealias Code = ErrorCode<PositionedError<Domain, Underlying>>

    public var code: Code
    /// A human explanation naming the value at fault.
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column, in bytes from the start of the line.
    public var column: Int
    /// 0-based byte offset from the start of the input.
    public var offset: Int
    /// The byte source's own error, for an I/O failure.
    public var underlying: Underlying?

    public init(_ code: Code, _ message: String, line: Int, column: Int, offset: Int, underlying: Underlying? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.underlying = underlying
    }

    /// `LINE:COLUMN: CODE: MESSAGE`, as compilers print a place in a file.
    public var description: String { "\(line):\(column): \(code): \(message)" }
}

extension PositionedError: Equatable where Underlying: Equatable {}
extension PositionedError: Hashable where Underlying: Hashable {}
