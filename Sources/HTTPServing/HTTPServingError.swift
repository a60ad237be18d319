public import GeoBase

/// The one error type of HTTPServing (STYLE.md §3.7): a growable `Code`, a human message.
public typealias HTTPServingError = CodedError<HTTPServingErrorDomain>

/// Names HTTPServingError's codes apart from other modules' (`CodedError`); it has no values.
public enum HTTPServingErrorDomain {}

extension ErrorCode where Domain == HTTPServingError {
    /// An `--allow-origin` value that is not `scheme://host[:port]`.
    public static var invalidOrigin: Self { Self("invalid origin") }
    /// A WebSocket frame from a client without a mask (RFC 6455 §5.1).
    public static var unmaskedFrame: Self { Self("unmasked frame") }
    /// No address of the server could be bound (port taken, no such address).
    public static var cannotBind: Self { Self("cannot bind") }
    /// A connection over the server's bound of open connections (`OpenConnections`).
    public static var tooManyConnections: Self { Self("too many connections") }
}
