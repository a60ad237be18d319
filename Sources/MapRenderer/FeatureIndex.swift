public import MapData

/// Map features with a grid over the world, to find those near a view without visiting every
/// feature: each feature is listed in the cells its bounding box touches (at 2^12 × 2^12
/// cells, ≈ 10 km at the equator); features spanning more than 4096 cells sit in one list
/// that every query returns.
public struct MapFeatureIndex: Sendable {
    public let features: [MapFeature]
    private let cells: [Int: [Int32]]
    private let everywhere: [Int32]
    private static let level = 12

    /// - Complexity: O(features × cells each touches).
    public init(_ features: [MapFeature]) {
        self.features = features
        var cells: [Int: [Int32]] = [:]
        var everywhere: [Int32] = []
        let n = Double(1 << Self.level)
        for (i, f) in features.enumerated() {
            guard let b = f.geometry.bounds else { continue }
            let x0 = Self.cell(b.minX * n), x1 = Self.cell(b.maxX * n), y0 = Self.cell(b.minY * n), y1 = Self.cell(b.maxY * n)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > 4096 {
                everywhere.append(Int32(i))
                continue
            }
            for y in y0...y1 { for x in x0...x1 { cells[y << Self.level | x, default: []].append(Int32(i)) } }
        }
        self.cells = cells
        self.everywhere = everywhere
    }

    private static func cell(_ v: Double) -> Int { Int(min(max(v, 0), Double((1 << level) - 1))) }

    /// The features whose boxes may meet the world rectangle, in their original order.
    public func features(in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)?) -> [MapFeature] {
        guard let b = bounds else { return features }
        let n = Double(1 << Self.level)
        let x0 = Self.cell(b.minX * n), x1 = Self.cell(b.maxX * n), y0 = Self.cell(b.minY * n), y1 = Self.cell(b.maxY * n)
        var found = Set<Int32>(everywhere)
        for y in y0...y1 { for x in x0...x1 { if let list = cells[y << Self.level | x] { found.formUnion(list) } } }
        return found.sorted().map { features[Int($0)] }.filter { f in
            guard let fb = f.geometry.bounds else { return false }
            return fb.maxX >= b.minX && fb.minX <= b.maxX && fb.maxY >= b.minY && fb.minY <= b.maxY
        }
    }
}
