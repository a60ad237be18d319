import Foundation
import GeoBase
import GeoTestSupport
import SystemIO
import Testing
import TileServer

/// `MapFiles`, the loaders behind every map `geo` draws: each failure a `MapFilesError` whose
/// code says what `geo` makes of it and whose location is the file or folder at fault.
@Suite struct MapFilesTests {
    /// A missing map data file, a folder and a file of no map data format, each named.
    @Test func mapData_missingFolderOrOtherFormat_namesThePath() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let text = dir + "/notes.txt"
            try AtomicFileReplacement.write(Array("no map".utf8), to: text)
            for (path, code) in [(dir + "/missing.osm.pbf", MapFilesError.Code.noInput), (dir, .noInput), (text, .notMapData)] {
                let error = #expect(throws: MapFilesError.self) { try MapFiles.mapData(path) { _, _, _, _ in } }
                #expect(error?.code == code, "\(path)")
                #expect(error?.location == path)
            }
        }
    }

    /// An `.osm` file that is not XML is damaged, its reader's error the message.
    @Test func mapData_damagedExtract_isDamagedAtThePath() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let path = dir + "/city.osm"
            try AtomicFileReplacement.write(Array("<osm><node id=".utf8), to: path)
            let error = #expect(throws: MapFilesError.self) { try MapFiles.mapData(path) { _, _, _, _ in } }
            #expect(error?.code == .damaged)
            #expect(error?.location == path)
            #expect(error?.message.isEmpty == false)
        }
    }

    /// A style file that is not a v8 style is damaged; `contents` reads at most `limit` bytes.
    @Test func style_notAStyle_isDamaged_contentsStopsAtTheLimit() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let path = dir + "/style.json"
            try AtomicFileReplacement.write(Array("[1, 2]".utf8), to: path)
            #expect(try MapFiles.contents(path, limit: 3) == Array("[1,".utf8))
            let error = #expect(throws: MapFilesError.self) { try MapFiles.style(at: path) }
            #expect(error?.code == .damaged)
            #expect(error?.location == path)
        }
    }

    /// A folder with no icons packs nothing and writes no sheet; a missing one is "no such folder".
    @Test func writeSprites_noIconsOrNoFolder_isNoInput() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            try AtomicFileReplacement.write(Array("readme".utf8), to: dir + "/README")
            let empty = #expect(throws: MapFilesError.self) { try MapFiles.writeSprites(from: dir, to: dir + "/out/sprite") }
            #expect(empty?.code == .noInput)
            #expect(empty?.message == "no .svg or .png icons in the folder")
            #expect(FileSource.inputProblem(at: dir + "/out/sprite.json") != nil)
            let missing = #expect(throws: MapFilesError.self) { try MapFiles.writeSprites(from: dir + "/none", to: dir + "/sprite") }
            #expect(missing?.message == "no such folder")
            #expect(missing?.location == dir + "/none")
        }
    }
}
