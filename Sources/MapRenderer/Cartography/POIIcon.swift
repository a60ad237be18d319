#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// POI icons drawn as vector shapes: a coloured disc with a white symbol for the class group
/// (a cup, a fork and knife, a fuel pump, a "P", a cross, a bed, a bag, a book), or a dot.
enum POIIcon {
    /// The icon's radius, pixels.
    static let radius = 8.0

    static func draw(_ featureClass: String, at c: Point, color: Color, on canvas: inout Canvas) {
        canvas.fill(Path(circleAt: c, radius: radius + 1), color: .white)
        canvas.fill(Path(circleAt: c, radius: radius), color: color)
        let white = Color.white
        func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Path { Path(rectX: c.x + x, y: c.y + y, width: w, height: h) }
        func line(_ pts: [(Double, Double)], _ w: Double, _ ink: Color = .white) {
            canvas.stroke(Path(polyline: pts.map { Point(x: c.x + $0.0, y: c.y + $0.1) }), style: StrokeStyle(width: w, join: .round, cap: .round), color: ink)
        }
        switch featureClass {
        case "cafe":
            // A cup with a handle.
            canvas.fill(rect(-4, -2, 6, 5), color: white)
            canvas.stroke(Path(circleAt: Point(x: c.x + 3, y: c.y + 0.5), radius: 1.8), style: StrokeStyle(width: 1.2), color: white)
            line([(-4.5, 4.5), (2.5, 4.5)], 1)
        case "restaurant", "fast_food", "bar":
            // Fork and knife.
            line([(-2.5, -5), (-2.5, 5)], 1.2)
            line([(-4, -5), (-4, -1.5), (-1, -1.5), (-1, -5)], 0.9)
            line([(3, -5), (3, 5)], 1.2)
            canvas.fill(Path(polyline: [Point(x: c.x + 3, y: c.y - 5), Point(x: c.x + 4.6, y: c.y - 2), Point(x: c.x + 3, y: c.y + 0.5)], closed: true), color: white)
        case "fuel":
            // A pump and its hose.
            canvas.fill(rect(-4, -5, 5, 10), color: white)
            canvas.fill(rect(-3, -4, 3, 2.5), color: color)
            line([(1, -2), (3.5, -1), (3.5, 3), (2.2, 3.5)], 1)
        case "parking", "bicycle_parking":
            // "P": a stem and a bowl.
            line([(-2.5, 5), (-2.5, -5), (0.5, -5)], 1.8)
            canvas.stroke(Path(circleAt: Point(x: c.x + 0.5, y: c.y - 2), radius: 3), style: StrokeStyle(width: 1.8), color: white)
            canvas.fill(rect(-2.5, -5, 3, 1.8), color: white)
        case "hospital", "doctors", "pharmacy":
            canvas.fill(rect(-1.5, -5, 3, 10), color: white)
            canvas.fill(rect(-5, -1.5, 10, 3), color: white)
        case "lodging":
            // A bed.
            line([(-5, -3), (-5, 4)], 1.2)
            canvas.fill(rect(-5, 0, 10, 2.5), color: white)
            canvas.fill(Path(circleAt: Point(x: c.x - 2.5, y: c.y - 1.5), radius: 1.5), color: white)
            line([(5, 0), (5, 4)], 1.2)
        case "shop":
            // A bag with handles.
            canvas.fill(rect(-4, -2, 8, 7), color: white)
            canvas.stroke(Path(circleAt: Point(x: c.x, y: c.y - 2), radius: 2.2), style: StrokeStyle(width: 1), color: white)
        case "school", "college", "library":
            // An open book.
            canvas.fill(Path(polyline: [Point(x: c.x - 5, y: c.y - 3), Point(x: c.x, y: c.y - 2), Point(x: c.x + 5, y: c.y - 3),
                                        Point(x: c.x + 5, y: c.y + 4), Point(x: c.x, y: c.y + 5), Point(x: c.x - 5, y: c.y + 4)], closed: true), color: white)
            line([(0, -2), (0, 5)], 0.8, color)
        default:
            canvas.fill(Path(circleAt: c, radius: 3), color: white)
        }
    }
}
