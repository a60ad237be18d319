public import GeoBase
import GeoCore

/// The one error type of MapCamera (STYLE.md §3.7): a growable `Code` and a message naming the
/// value at fault, e.g. `not a number: zoomLevel is nan`.
public typealias MapCameraError = CodedError<MapCameraErrorDomain>

/// Names MapCameraError's codes apart from other modules' (`CodedError`); it has no values.
public enum MapCameraErrorDomain {}

extension ErrorCode where Domain == MapCameraError {
    /// A camera value that is NaN or infinite.
    public static var notFinite: Self { Self("not finite") }
    /// A view whose width or height is not a positive finite number of pixels.
    public static var invalidViewSize: Self { Self("invalid view size") }
    /// Limits that contradict themselves (minimum zoom above maximum, an unordered tilt profile …).
    public static var invalidLimits: Self { Self("invalid limits") }
    /// Any other argument outside its domain (a duration, a gesture factor, a tile budget …).
    public static var invalidArgument: Self { Self("invalid argument") }
}

/// Throws `.notFinite` naming `name` unless `value` is finite.
@inline(__always)
func requireFinite(_ value: Double, _ name: String) throws(MapCameraError) {
    guard value.isFinite else { throw MapCameraError(.notFinite, "\(name) is \(value)") }
}
