/// The events a map camera reports (the seed's `NMAMapEvent`), as an option set so that one
/// block can respond to several.
///
/// A *transformation* is any change of centre, zoom, orientation or tilt, by an animation, a
/// gesture or its inertia, or a jump; one `transformationBegan` … `transformationEnded` pair
/// can span several of them, and it ends only when nothing moves any more.
public struct MapEvents: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let geoCenterChanged = MapEvents(rawValue: 1 << 0)
    public static let zoomLevelChanged = MapEvents(rawValue: 1 << 1)
    public static let orientationChanged = MapEvents(rawValue: 1 << 2)
    public static let tiltChanged = MapEvents(rawValue: 1 << 3)
    public static let gestureBegan = MapEvents(rawValue: 1 << 4)
    public static let gestureEnded = MapEvents(rawValue: 1 << 5)
    public static let animationBegan = MapEvents(rawValue: 1 << 6)
    public static let animationEnded = MapEvents(rawValue: 1 << 7)
    public static let transformationBegan = MapEvents(rawValue: 1 << 8)
    public static let transformationEnded = MapEvents(rawValue: 1 << 9)

    /// Every event.
    public static let all = MapEvents(rawValue: (1 << 10) - 1)

    private static let names: [(MapEvents, String)] = [
        (.geoCenterChanged, "geoCenterChanged"), (.zoomLevelChanged, "zoomLevelChanged"),
        (.orientationChanged, "orientationChanged"), (.tiltChanged, "tiltChanged"),
        (.gestureBegan, "gestureBegan"), (.gestureEnded, "gestureEnded"),
        (.animationBegan, "animationBegan"), (.animationEnded, "animationEnded"),
        (.transformationBegan, "transformationBegan"), (.transformationEnded, "transformationEnded"),
    ]

    /// The names of the events in the set, e.g. `[gestureBegan, animationBegan]`.
    public var description: String { "[" + Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]" }
}

/// Identifies a registered event block, for ``CameraController/removeEventBlock(_:)``.
public struct MapEventBlockID: Hashable, Sendable {
    let value: Int
}
