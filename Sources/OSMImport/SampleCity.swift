public import Foundation
import GeoBase
public import GeoCore
import MapData

/// "Lindenau", a small fictional city that LocationKit generates itself (DESIGN.md, "the
/// embedded default"): the demo and the tests run the real import path on it.
///
/// It is centred on 48.0° N, 11.0° E (open country in southern Bavaria; the town, its streets
/// and its river are invented) and laid out in local metres, east `x` and north `y`, converted
/// with a spherical equirectangular approximation (111 320 m per degree of latitude; that
/// times cos 48° per degree of longitude), plenty for a 2.4 km town:
///
/// - an 11 × 11 street grid, 120 m blocks (x, y from −600 to 600 m), every street split into
///   one way per block so turn restrictions have ways that end at their via node;
///   `Hauptstraße` (row 5) and `Bahnhofstraße` (column 5) are `primary` arterials, the edge
///   streets `tertiary`, the rest `residential` with `maxspeed` 30 on most;
/// - one-way streets: row 1 (`oneway=yes`, eastbound), row 9 (`oneway=yes`, westbound,
///   nodes drawn east to west) and column 7 (`oneway=-1`: drawn south to north, driven south);
/// - a ring road (`secondary`, 70 km/h, radius 900 m) reached by the arterials, with a
///   roundabout (`junction=roundabout`, radius 25 m) on the eastern arterial at x = 750 m and
///   a side road from it to the ring past a fuel station;
/// - the river Lind (`waterway=river` plus a `natural=water` area 40 m wide) flowing east
///   along y ≈ 300 m, crossed by bridges (`bridge=yes`, `layer=1`) on columns 1, 5 and 9 and
///   twice by the ring; other streets stop at the bank streets (rows 7 and 8);
/// - Stadtpark (`leisure=park`) over four blocks in the south-west, crossed only by footways;
/// - a riverside path (`highway=path`), steps (`highway=steps`) from the bank street down
///   to it, a bollard (`barrier=bollard`) closing one street to cars, traffic signals;
/// - about 350 buildings (`building=*`, some with addresses) and POIs (fuel, cafés,
///   restaurants, pharmacies, a bank, shops…), placed with a seeded generator;
/// - four turn restrictions (`type=restriction`: `no_left_turn`, `only_straight_on`).
///
/// The same seed always gives the same elements (and the same file bytes).
public struct SampleCity: Sendable {
    public var nodes: [OSMNode]
    public var ways: [OSMWay]
    public var relations: [OSMRelation]
    /// The area covered by all nodes.
    public var boundingBox: BoundingBox

    /// The centre of the town, x = y = 0.
    public static let center = Coordinate(uncheckedLatitude: 48.0, longitude: 11.0)

    /// The header written with the city.
    public var header: OSMHeader {
        OSMHeader(boundingBox: boundingBox, optionalFeatures: ["Sort.Type_then_ID"],
                  writingProgram: "LocationKit sample-city", source: "LocationKit SampleCity (fictional)")
    }

    /// Writes the city as an `.osm.pbf` file.
    /// - Throws: `OSMError.io` when the file cannot be written.
    public func write(to url: URL) throws(OSMError) {
        try OSMPBFWriter.write(nodes: nodes, ways: ways, relations: relations, header: header, to: url,
                               options: .init(includesMetadata: false))
    }

    /// Generates the city.
    /// - Parameter seed: varies building sizes, street-name order and POI placement.
    /// - Complexity: O(number of elements), a few thousand.
    public static func generate(seed: UInt64 = 1) -> SampleCity {
        var b = CityBuilder(seed: seed)
        b.build()
        let box = BoundingBox(covering: b.nodes.map(\.coordinate)) ?? BoundingBox(center)
        return SampleCity(nodes: b.nodes, ways: b.ways, relations: b.relations, boundingBox: box)
    }
}

/// The generator's state: elements so far and the ids of the pieces later steps connect to.
private struct CityBuilder {
    var rng: SplitMix64
    var nodes: [OSMNode] = []
    var ways: [OSMWay] = []
    var relations: [OSMRelation] = []

    /// Block size and grid extent, metres.
    let block = 120.0
    let n = 11
    /// Intersection node ids, [i][j] for column i, row j.
    var intersections: [[Int64]] = []
    /// Way ids of the street segments: row j from column i to i + 1, column i from row j to j + 1.
    var rowSegments: [[Int64]] = []
    var columnSegments: [[Int64]] = []
    var rowNames: [String] = []
    var columnNames: [String] = []
    /// Riverside path node ids keyed by x in metres.
    var pathNodes: [Int: Int64] = [:]
    /// Mid-block node ids of row 7 keyed by x in metres.
    var bankStreetMidNodes: [Int: Int64] = [:]

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    func x(_ i: Int) -> Double { -600 + block * Double(i) }
    func y(_ j: Int) -> Double { -600 + block * Double(j) }

    /// River centre line, metres north, at `x` metres east.
    func riverY(_ x: Double) -> Double { 300 + 8 * sin(x / 150) }

    mutating func node(_ x: Double, _ y: Double, _ tags: OSMTags = [:]) -> Int64 {
        let lat = SampleCity.center.latitude + y / 111_320
        let lon = SampleCity.center.longitude + x / (111_320 * cos(SampleCity.center.latitude * .pi / 180))
        let id = Int64(nodes.count + 1)
        nodes.append(OSMNode(id: id, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), tags: tags))
        return id
    }

    @discardableResult
    mutating func way(_ refs: [Int64], _ tags: OSMTags) -> Int64 {
        let id = Int64(ways.count + 1)
        ways.append(OSMWay(id: id, nodeRefs: refs, tags: tags))
        return id
    }

    mutating func build() {
        nameStreets()
        buildGrid()
        buildRiver()
        buildRingAndRoundabout()
        buildPark()
        buildBuildings()
        buildPOIs()
        buildRestrictions()
    }

    mutating func nameStreets() {
        var rows = ["Ahornstraße", "Birkenstraße", "Kastanienstraße", "Lindenstraße", "Eichenstraße",
                    "Ulmenweg", "Mühlenweg", "Gartenstraße", "Bergstraße"]
        var columns = ["Amselweg", "Brunnengasse", "Parkstraße", "Schulstraße", "Marktstraße",
                       "Kirchgasse", "Rosenweg", "Feldstraße", "Wiesenweg"]
        rows.shuffle(using: &rng)
        columns.shuffle(using: &rng)
        rows.insert("Hauptstraße", at: 5)
        rows.insert("Uferstraße", at: 7)
        columns.insert("Bahnhofstraße", at: 5)
        columns.append("Schillerstraße")
        rowNames = rows
        columnNames = columns
    }

    /// Street tags of row `j` (horizontal) or column `i` (vertical).
    func streetTags(row: Int? = nil, column: Int? = nil) -> OSMTags {
        let k = row ?? column ?? 0
        let name = row != nil ? rowNames[k] : columnNames[k]
        var t = OSMTags()
        if k == 5 {
            t.append(key: "highway", value: "primary")
            t.append(key: "name", value: name)
            t.append(key: "maxspeed", value: "50")
            t.append(key: "lanes", value: "2")
        } else if k == 0 || k == n - 1 {
            t.append(key: "highway", value: "tertiary")
            t.append(key: "name", value: name)
            t.append(key: "maxspeed", value: "50")
        } else {
            t.append(key: "highway", value: "residential")
            t.append(key: "name", value: name)
            if k % 4 != 3 { t.append(key: "maxspeed", value: "30") }
        }
        if row == 1 || row == 9 { t.append(key: "oneway", value: "yes") }
        if column == 7 { t.append(key: "oneway", value: "-1") }
        return t
    }

    /// Whether the segment lies inside Stadtpark (footway instead of street).
    func inPark(rowSegment i: Int, j: Int) -> Bool { j == 2 && (i == 1 || i == 2) }
    func inPark(columnSegment i: Int, j: Int) -> Bool { i == 2 && (j == 1 || j == 2) }

    mutating func buildGrid() {
        for i in 0..<n {
            var column: [Int64] = []
            for j in 0..<n {
                var tags = OSMTags()
                if i == 5 && [2, 5, 8].contains(j) || j == 5 && [2, 8].contains(i) {
                    tags.append(key: "highway", value: "traffic_signals")
                }
                column.append(node(x(i), y(j), tags))
            }
            intersections.append(column)
        }
        let footway: OSMTags = ["highway": "footway", "surface": "gravel"]
        // Rows: one way per block, nodes west to east (row 9 east to west).
        for j in 0..<n {
            var segments: [Int64] = []
            for i in 0..<(n - 1) {
                let midX = x(i) + block / 2
                var midTags = OSMTags()
                if j == 3 && i == 6 { midTags.append(key: "barrier", value: "bollard") }
                let mid = node(midX, y(j), midTags)
                if j == 7 { bankStreetMidNodes[Int(midX)] = mid }
                var refs = [intersections[i][j], mid, intersections[i + 1][j]]
                if j == 9 { refs.reverse() }
                segments.append(way(refs, inPark(rowSegment: i, j: j) ? footway : streetTags(row: j)))
            }
            rowSegments.append(segments)
        }
        // The riverside path on the south bank (y = 265 m), shared with the bridge approaches.
        var path: [Int64] = []
        for k in 0...20 {
            let px = -600 + 60 * k
            let id = node(Double(px), 265)
            pathNodes[px] = id
            path.append(id)
        }
        // Columns: one way per block, nodes south to north; only columns 1, 5, 9 cross the river.
        for i in 0..<n {
            var segments: [Int64] = []
            for j in 0..<(n - 1) {
                if j == 7 {
                    guard [1, 5, 9].contains(i), let p = pathNodes[Int(x(i))] else { segments.append(0); continue }
                    let q = node(x(i), 335)
                    var bridge = streetTags(column: i)
                    bridge.append(key: "bridge", value: "yes")
                    bridge.append(key: "layer", value: "1")
                    segments.append(way([intersections[i][7], p], streetTags(column: i)))
                    way([p, q], bridge)
                    way([q, intersections[i][8]], streetTags(column: i))
                    continue
                }
                let mid = node(x(i), y(j) + block / 2)
                let refs = [intersections[i][j], mid, intersections[i][j + 1]]
                segments.append(way(refs, inPark(columnSegment: i, j: j) ? footway : streetTags(column: i)))
            }
            columnSegments.append(segments)
        }
        way(path, ["highway": "path", "name": "Uferweg", "surface": "compacted"])
        // Steps from the bank street down to the path, and at both ends of the path.
        for sx in [-180, 300] {
            if let top = bankStreetMidNodes[sx], let bottom = pathNodes[sx] {
                way([top, bottom], ["highway": "steps", "step_count": "12"])
            }
        }
        if let west = pathNodes[-600], let east = pathNodes[600] {
            way([intersections[0][7], west], ["highway": "steps", "step_count": "12"])
            way([intersections[n - 1][7], east], ["highway": "steps", "step_count": "12"])
        }
    }

    mutating func buildRiver() {
        var centre: [Int64] = [], north: [Int64] = [], south: [Int64] = []
        for k in 0...48 {
            let rx = -1200 + 50 * Double(k)
            centre.append(node(rx, riverY(rx)))
        }
        for k in 0...48 {
            let rx = -1200 + 50 * Double(k)
            south.append(node(rx, riverY(rx) - 20))
        }
        for k in 0...48 {
            let rx = 1200 - 50 * Double(k)
            north.append(node(rx, riverY(rx) + 20))
        }
        way(centre, ["waterway": "river", "name": "Lind"])
        guard let first = south.first else { return }
        // Counter-clockwise outline: south bank eastward, north bank westward, closed.
        way(south + north + [first], ["natural": "water", "water": "river", "name": "Lind"])
    }

    mutating func buildRingAndRoundabout() {
        let radius = 900.0
        let count = 144 // every 2.5°, counter-clockwise from east
        let ring = (0..<count).map { k in
            let a = Double(k) * 2.5 * .pi / 180
            return node(radius * cos(a), radius * sin(a))
        }
        var ringTags: OSMTags = ["highway": "secondary", "name": "Ring", "maxspeed": "70"]
        var bridgeTags = ringTags
        bridgeTags.append(key: "bridge", value: "yes")
        bridgeTags.append(key: "layer", value: "1")
        ringTags.append(key: "lanes", value: "2")
        // Split at the four arterial junctions (k = 0, 36, 72, 108) and the two bridges.
        let cuts: [(Int, Int, Bool)] = [(0, 7, false), (7, 9, true), (9, 36, false), (36, 63, false),
                                        (63, 65, true), (65, 72, false), (72, 108, false), (108, 144, false)]
        for (from, to, isBridge) in cuts {
            way((from...to).map { ring[$0 % count] }, isBridge ? bridgeTags : ringTags)
        }
        // Arterials out to the ring: west, south, north straight; east through the roundabout.
        let primary: OSMTags = ["highway": "primary", "maxspeed": "50"]
        func named(_ t: OSMTags, _ name: String) -> OSMTags {
            var t = t
            t.append(key: "name", value: name)
            return t
        }
        way([intersections[0][5], node(-750, 0), ring[72]], named(primary, rowNames[5]))
        way([intersections[5][0], node(0, -750), ring[108]], named(primary, columnNames[5]))
        // North arterial crosses nothing: the river is south of row 8.
        way([intersections[5][n - 1], node(0, 750), ring[36]], named(primary, columnNames[5]))
        // Roundabout at (750, 0), 16 nodes counter-clockwise from the west point, closed.
        let rb = (0..<16).map { k in
            let a = .pi + Double(k) * 2 * .pi / 16
            return node(750 + 25 * cos(a), 25 * sin(a))
        }
        way([intersections[n - 1][5], node(660, 0), rb[0]], named(primary, rowNames[5]))
        way(rb + [rb[0]], ["highway": "primary", "junction": "roundabout", "name": "Lindenplatz"])
        way([rb[8], node(840, 0), ring[0]], named(primary, rowNames[5]))
        // Side road from the roundabout's south point to the ring, past the fuel station.
        let side: OSMTags = ["highway": "tertiary", "name": "Gewerbestraße", "maxspeed": "50"]
        way([rb[4], node(752, -250), ring[131]], side)
        _ = node(775, -250, ["amenity": "fuel", "name": "Lindenau Tankstelle", "brand": "Lindoil", "opening_hours": "24/7"])
    }

    mutating func buildPark() {
        let lo = x(1) + 8, hi = x(3) - 8
        let corners = [node(lo, lo), node(hi, lo), node(hi, hi), node(lo, hi)]
        way(corners + [corners[0]], ["leisure": "park", "name": "Stadtpark"])
        let diagonal = [intersections[1][1], node(-420, -420), intersections[2][2], node(-300, -300), intersections[3][3]]
        way(diagonal, ["highway": "footway"])
        way([intersections[3][1], intersections[2][2], intersections[1][3]], ["highway": "footway", "lit": "yes"])
        _ = node(-370, -330, ["amenity": "bench"])
        _ = node(-350, -390, ["amenity": "drinking_water"])
    }

    mutating func buildBuildings() {
        var houseNumbers = [Int](repeating: 1, count: n)
        for j in 0..<(n - 1) where j != 7 {
            for i in 0..<(n - 1) where !((1...2).contains(i) && (1...2).contains(j)) {
                for q in 0..<4 {
                    let qx = x(i) + 14 + Double(q % 2) * 48
                    let qy = y(j) + 14 + Double(q / 2) * 48
                    let w = Double.random(in: 18...40, using: &rng)
                    let h = Double.random(in: 16...40, using: &rng)
                    let kinds = ["house", "house", "apartments", "apartments", "residential", "commercial", "retail"]
                    var tags: OSMTags = ["building": kinds[Int.random(in: 0..<kinds.count, using: &rng)]]
                    tags.append(key: "building:levels", value: String(Int.random(in: 1...5, using: &rng)))
                    if q < 2 {
                        tags.append(key: "addr:street", value: rowNames[j])
                        tags.append(key: "addr:housenumber", value: String(houseNumbers[j]))
                        houseNumbers[j] += 1
                    }
                    let c = [node(qx, qy), node(qx + w, qy), node(qx + w, qy + h), node(qx, qy + h)]
                    way(c + [c[0]], tags)
                }
            }
        }
    }

    mutating func buildPOIs() {
        let pois: [OSMTags] = [
            ["amenity": "cafe", "name": "Café Linde"], ["amenity": "cafe", "name": "Kaffeehaus am Markt"],
            ["amenity": "cafe", "name": "Ufercafé"], ["amenity": "cafe", "name": "Bohne & Blatt"],
            ["amenity": "restaurant", "name": "Gasthof zur Brücke", "cuisine": "regional"],
            ["amenity": "restaurant", "name": "Trattoria Lind", "cuisine": "italian"],
            ["amenity": "restaurant", "name": "Goldener Drache", "cuisine": "chinese"],
            ["amenity": "restaurant", "name": "Ringkeller", "cuisine": "german"],
            ["amenity": "pharmacy", "name": "Linden-Apotheke", "dispensing": "yes"],
            ["amenity": "pharmacy", "name": "Park-Apotheke", "dispensing": "yes"],
            ["amenity": "bank", "name": "Sparkasse Lindenau"], ["amenity": "post_office", "name": "Post"],
            ["amenity": "fast_food", "name": "Imbiss am Ring", "cuisine": "kebab"], ["amenity": "pub", "name": "Zum Fass"],
            ["amenity": "school", "name": "Grundschule Lindenau"], ["amenity": "place_of_worship", "religion": "christian", "name": "St. Martin"],
            ["amenity": "toilets"], ["amenity": "parking", "parking": "surface"],
            ["shop": "supermarket", "name": "Lindenmarkt"], ["shop": "bakery", "name": "Bäckerei Korn"],
            ["shop": "butcher", "name": "Metzgerei Huber"], ["shop": "clothes", "name": "Mode Lind"],
            ["shop": "hairdresser", "name": "Salon Schnitt"], ["shop": "kiosk"],
        ]
        // Candidate spots: 12 m north of each mid-block node of the streets, outside park and river.
        var spots: [(Double, Double)] = []
        for j in 0..<(n - 1) where j != 7 {
            for i in 0..<(n - 1) where !((1...2).contains(i) && (1...2).contains(j)) {
                spots.append((x(i) + block / 2, y(j) + 8))
            }
        }
        spots.shuffle(using: &rng)
        for (k, tags) in pois.enumerated() {
            let (px, py) = spots[k % spots.count]
            _ = node(px, py, tags)
        }
        _ = node(-740, 15, ["amenity": "fuel", "name": "Westtankstelle", "opening_hours": "Mo-Su 06:00-22:00"])
        _ = node(30, 30, ["place": "town", "name": "Lindenau", "population": "12000"])
        _ = node(0, 300, ["tourism": "viewpoint", "name": "Lindblick"])
    }

    mutating func buildRestrictions() {
        func restriction(_ kind: String, from: Int64, via: Int64, to: Int64) -> OSMRelation {
            OSMRelation(id: 0, members: [OSMMember(type: .way, ref: from, role: "from"),
                                         OSMMember(type: .node, ref: via, role: "via"),
                                         OSMMember(type: .way, ref: to, role: "to")],
                        tags: ["type": "restriction", "restriction": kind])
        }
        let list = [
            // Eastbound on Hauptstraße at the centre: no left turn into northbound Bahnhofstraße.
            restriction("no_left_turn", from: rowSegments[5][4], via: intersections[5][5], to: columnSegments[5][5]),
            // Northbound on Bahnhofstraße at the centre: straight on only.
            restriction("only_straight_on", from: columnSegments[5][4], via: intersections[5][5], to: columnSegments[5][5]),
            // Westbound on Hauptstraße at column 2: no left turn (south).
            restriction("no_left_turn", from: rowSegments[5][2], via: intersections[2][5], to: columnSegments[2][4]),
            // Eastbound on row 2 at column 8: straight on only.
            restriction("only_straight_on", from: rowSegments[2][7], via: intersections[8][2], to: rowSegments[2][8]),
        ]
        for (k, var r) in list.enumerated() {
            r.id = Int64(k + 1)
            relations.append(r)
        }
        relations.append(OSMRelation(id: Int64(list.count + 1),
                                     members: rowSegments[5].map { OSMMember(type: .way, ref: $0, role: "") },
                                     tags: ["type": "route", "route": "bus", "ref": "1", "name": "Bus 1"]))
    }
}
