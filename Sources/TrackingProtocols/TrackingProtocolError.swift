import GeoCore
public import GeoBase

/// The domain of TrackingProtocols' one error type.
public enum TrackingProtocolErrorDomain {}
/// The one error type of TrackingProtocols (STYLE.md §3.7): a growable `Code`, a message naming
/// the value at fault, and where in the input it is: a parameter (`query parameter 'lat'`), a
/// JSON path (`$.locations[3].geometry.coordinates`) or a byte offset (`byte 27, record 1`).
public typealias TrackingProtocolError = LocatedError<TrackingProtocolErrorDomain>

extension ErrorCode where Domain == TrackingProtocolError {
    /// A body larger than `DecodingRules.maximumBodyBytes`.
    public static var bodyTooLarge: Self { Self("body too large") }
    /// Text that is not the format's syntax (not JSON, not a form, not UTF-8).
    public static var malformed: Self { Self("malformed") }
    /// JSON nested deeper than `DecodingRules.maximumJSONDepth`.
    public static var tooDeep: Self { Self("nested too deep") }
    /// A field the format requires is absent.
    public static var missingField: Self { Self("missing field") }
    /// A number that does not parse or is NaN or infinite.
    public static var invalidNumber: Self { Self("invalid number") }
    /// A latitude outside [-90, 90] or a longitude outside [-180, 180].
    public static var invalidCoordinate: Self { Self("invalid coordinate") }
    /// A fix time before `DecodingRules.earliestFixTime` or more than `maximumLead` ahead.
    public static var invalidTime: Self { Self("invalid time") }
    /// No device identifier in the request.
    public static var missingDevice: Self { Self("missing device") }
    /// A Teltonika frame whose length field exceeds `maximumPacketBytes`.
    public static var frameTooLong: Self { Self("frame too long") }
    /// A Teltonika frame whose CRC-16/IBM does not match its data.
    public static var checksumMismatch: Self { Self("checksum mismatch") }
    /// A codec or message type this decoder does not read.
    public static var unsupported: Self { Self("unsupported") }
}
