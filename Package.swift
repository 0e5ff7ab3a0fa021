// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Cadenza",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "MusicUnderstanding", targets: ["MusicUnderstanding"]),
        .executable(name: "cadenza", targets: ["cadenza"]),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswresample",
            providers: [.apt(["libavformat-dev", "libavdevice-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]
        ),
        .systemLibrary(
            name: "CFFTW",
            pkgConfig: "fftw3f",
            providers: [.apt(["libfftw3-dev"])]
        ),
        .systemLibrary(
            name: "CSndfile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // TagLib (libtag1-dev) behind a small C interface; C++ because TagLib's C API cannot set
        // BPM, key or ReplayGain properties.
        .target(
            name: "CTagWriter",
            linkerSettings: [.linkedLibrary("tag")]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "MusicUnderstanding",
            dependencies: ["CFFmpeg", "CFFTW", "CSndfile", "CTagWriter", "CSQLite"]
        ),
        .executableTarget(
            name: "cadenza",
            dependencies: ["MusicUnderstanding"]
        ),
        .testTarget(
            name: "MusicUnderstandingTests",
            dependencies: ["MusicUnderstanding"],
            resources: [.copy("Resources")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
