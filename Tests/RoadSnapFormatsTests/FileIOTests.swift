import Testing
import RoadSnapCore
@testable import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// POSIX file reading, directory listing and atomic writing (no Foundation in `Sources/`).
@Suite struct FileIOTests {
    /// A fresh folder under /tmp, removed by `cleanUp`.
    static func folder() -> String {
        var template = Array("/tmp/roadsnap-fileio-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    static func cleanUp(_ path: String) {
        if FileIO.isDirectory(path) {
            for f in (try? FileIO.regularFiles(under: path)) ?? [] { unlink(path + "/" + f) }
            // Hidden files and folders too (the listing skips them).
            if let dir = opendir(path) {
                while let e = readdir(dir) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                    if name != ".", name != ".." { cleanUp(path + "/" + name) }
                }
                closedir(dir)
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    @Test func readsWholeFilesAndNamesWhatIsWrong() throws {
        let bytes = try FileIO.read(path: FixturePaths.fixture("bad/invalid-utf8-tag-name.gpx"))
        #expect(bytes == Array("<gpx><trk".utf8) + [0xFF] + Array("/>\n".utf8))
        #expect(throws: RoadSnapError.unreadableFile(path: "/nonexistent/x.gpx", reason: "no such file")) {
            try FileIO.read(path: "/nonexistent/x.gpx")
        }
        #expect(throws: RoadSnapError.unreadableFile(path: "/tmp", reason: "is a directory")) {
            try FileIO.read(path: "/tmp")
        }
    }

    @Test func atomicWriteCreatesFoldersReplacesAndLeavesNoTemporary() throws {
        let root = Self.folder()
        defer { Self.cleanUp(root) }
        let path = root + "/a/b/out.geojson"
        try AtomicFile.write("first\n", to: path)
        try AtomicFile.write("second\n", to: path)
        #expect(try FileIO.read(path: path) == Array("second\n".utf8))
        // Only the output: the temporary (".out.geojson.PID.X.tmp") was renamed over it.
        var names: [String] = []
        if let dir = opendir(root + "/a/b") {
            while let e = readdir(dir) {
                names.append(withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) })
            }
            closedir(dir)
        }
        #expect(names.filter { $0 != "." && $0 != ".." } == ["out.geojson"])
    }

    @Test func writeErrorsNameThePath() throws {
        let root = Self.folder()
        defer { Self.cleanUp(root) }
        try AtomicFile.write("x", to: root + "/file")
        // A folder cannot be made inside a regular file.
        let error = Result { () throws(RoadSnapError) in try AtomicFile.write("y", to: root + "/file/out.csv") }.failureValue
        #expect(error?.description.contains(root + "/file") == true, "\(String(describing: error))")
        // A directory is not replaced by a file (issue 16: refused before any temporary file is made).
        let dirError = Result { () throws(RoadSnapError) in try AtomicFile.write("y", to: root) }.failureValue
        #expect(dirError?.description == root + ": cannot write file: is a directory; give a file path",
                "\(String(describing: dirError))")
    }

    @Test func listsRegularFilesSortedSkippingHiddenOnes() throws {
        let root = Self.folder()
        defer { Self.cleanUp(root) }
        for f in ["b.gpx", "a/c.csv", "a/.hidden.csv", ".git/x.gpx", "z.txt"] { try AtomicFile.write("x", to: root + "/" + f) }
        #expect(try FileIO.regularFiles(under: root) == ["a/c.csv", "b.gpx", "z.txt"])
    }
}
