public import GeoCore

/// Something drawn over the map in the same pass as the map itself (the seed's map objects:
/// polylines, markers, circles).
public struct MapOverlay: Sendable {
    enum Kind: Sendable {
        case polyline([Coordinate], width: Double, color: Color)
        case marker(Coordinate, color: Color)
        case circle(Coordinate, radius: Distance, fill: Color, stroke: Color)
    }

    let kind: Kind

    /// A pin's head: its radius and the height of its centre above the tip, pixels.
    public static let pinHeadRadius = 9.0
    public static let pinHeadHeight = 22.0

    /// A line through `coordinates`, `width` pixels wide, with round joins and caps and a white
    /// casing.
    public static func polyline(_ coordinates: [Coordinate], width: Double = 4, color: Color = Color(hex: 0x1E64F0)) -> MapOverlay {
        MapOverlay(kind: .polyline(coordinates, width: width, color: color))
    }

    /// A pin whose tip is at `coordinate`.
    public static func marker(_ coordinate: Coordinate, color: Color = Color(hex: 0xE0301E)) -> MapOverlay {
        MapOverlay(kind: .marker(coordinate, color: color))
    }

    /// A circle of `radius` on the ground around `center` (drawn as a 72-gon of points at that
    /// distance on the local Mercator scale, so any projection bends it correctly).
    public static func circle(center: Coordinate, radius: Distance, fill: Color = Color(hex: 0x1E64F0, alpha: 48), stroke: Color = Color(hex: 0x1E64F0)) -> MapOverlay {
        MapOverlay(kind: .circle(center, radius: radius, fill: fill, stroke: stroke))
    }
}
