import Foundation
@testable import GeoCLI
import GeoBase
import GeoCore
import GPXCodec
import Positioning
import RoadNetwork
import Testing
import GeoTestSupport

// `CommandLineFileError`: every failure a command reports as one line and a sysexits status
// (sysexits.h: 64 EX_USAGE, 65 EX_DATAERR, 66 EX_NOINPUT), printed once by `Geo.runAsMain`.

@Test func commandName_isThePathOfSubcommandsUnderGeo() {
    #expect(Geo.name(of: RouteCommand.self) == "route")
    #expect(Geo.name(of: TilesCommand.Build.self) == "tiles build")
    #expect(Geo.name(of: TilesRenderCommand.self) == "tiles render")
    #expect(Geo.name(of: OSMCommand.Info.self) == "osm info")
    #expect(Geo.name(of: Geo.self) == "geo")
}

@Test func failureLine_eachKind_hasItsMessageAndStatus() {
    let damage = RoadNetworkError(.truncated, "truncated at byte 500")
    let cases: [(CommandLineFileError, String, Int32)] = [
        (.noInput("no such file", "x.gpx"), "geo: no such file: x.gpx", 66),
        (.damaged("city.graph", damage), "geo route: city.graph: \(damage)", 65),
        (.damaged("world", damage, command: "world base"), "geo world base: world: \(damage)", 65),
        (CommandLineFileError("-o out: cannot create", status: 73), "geo route: -o out: cannot create", 73),
        (CommandLineFileError("--port 80: in use", status: 69, command: "map"), "geo map: --port 80: in use", 69),
    ]
    for (error, line, status) in cases {
        #expect(error.line(command: "route") == line)
        #expect(error.status == status, "\(line)")
    }
    // Told inside another message (geo serve's note on missing fonts), a failure that names
    // its command reads as its line.
    #expect("\(CommandLineFileError("font NotoSans-Regular.ttf not found", status: 66, command: "serve"))" == "geo serve: font NotoSans-Regular.ttf not found")
    #expect("\(CommandLineFileError.noInput("no such file", "x.gpx"))" == "geo: no such file: x.gpx")
}

@Test func sourceFailure_statusSaysWhoseFaultItIs() {
    let gpx = GPXError(.truncated, "the input ends inside a start tag", line: 1, column: 19, offset: 18)
    let cases: [(PositioningError, Int32)] = [
        (PositioningError(.invalidConfiguration, "unknown source scheme 'bogus'"), 64),
        (PositioningError(.invalidConfiguration, "bad file", underlying: gpx), 65),
        (PositioningError(.io, "cut.gpx is damaged", underlying: gpx), 65),
        (PositioningError(.io, "cannot open nope.gpx"), 66),
    ]
    for (error, status) in cases {
        let failure = CommandLineFileError.source(error)
        #expect(failure.status == status, "\(error)")
        #expect(failure.line(command: "track") == "geo track: --source: \(error)")
        #expect(CommandLineFileError.source(error, command: "map").line(command: "map serve") == "geo map: --source: \(error)")
    }
}

@Test func reading_missingFileIsNoInput_acceptedErrorIsDamage_otherErrorPassesThrough() throws {
    try withTemporaryDirectory { dir in
        let missing = dir.appendingPathComponent("nope.graph").path
        do {
            _ = try CommandLineFiles.reading(missing) { 1 }
            Issue.record("a missing file is refused before the read")
        } catch let error as CommandLineFileError {
            #expect(error.line(command: "route") == "geo: no such file: \(missing)")
            #expect(error.status == 66)
        }
        let file = dir.appendingPathComponent("city.graph").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        let damage = RoadNetworkError(.truncated, "truncated at byte 3")
        do {
            _ = try CommandLineFiles.reading(file, damage: { $0 is RoadNetworkError }) { () throws -> Int in throw damage }
            Issue.record("a RoadNetworkError is the file's damage")
        } catch let error as CommandLineFileError {
            #expect(error.line(command: "route") == "geo route: \(file): \(damage)")
            #expect(error.status == 65)
        }
        let other = GeoCoreError(.invalidLatitude, "latitude 95 is outside [-90, 90]")
        #expect(throws: GeoCoreError.self) {
            try CommandLineFiles.reading(file, damage: { $0 is RoadNetworkError }) { () throws -> Int in throw other }
        }
        #expect(try CommandLineFiles.reading(file) { 7 } == 7)
    }
}
