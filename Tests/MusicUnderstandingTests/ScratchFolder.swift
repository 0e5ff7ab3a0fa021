import Foundation

/// A temporary folder for one test, removed when the test lets go of it (shared by the batch,
/// catalog and index tests).
final class ScratchFolder {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func copy(_ fixture: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(fixture), to: target)
    }

    func write(_ text: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
    }

    /// Every file (not folder) below `relative`, hidden ones included; empty when it does not exist.
    func files(under relative: String) throws -> [String] {
        let dir = path(relative)
        guard FileManager.default.fileExists(atPath: dir) else { return [] }
        return (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// Every file below `relative` with its bytes.
    func contents(of relative: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try files(under: relative) { result[name] = try Data(contentsOf: URL(fileURLWithPath: path(relative) + "/" + name)) }
        return result
    }
}
