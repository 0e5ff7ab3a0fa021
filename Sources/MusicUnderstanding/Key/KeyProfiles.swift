import Foundation

/// Key profiles: the expected weight of each pitch class (relative to the tonic) in a major and
/// a minor key. A chroma vector is compared with the 24 rotations of a profile by Pearson
/// correlation (the Krumhansl–Schmuckler method).
public struct KeyProfile: Sendable, Hashable, Codable {
    /// Name of the profile.
    public var name: String
    /// Weights of the 12 pitch classes above the tonic in a major key, tonic first.
    public var major: [Double]
    /// Weights of the 12 pitch classes above the tonic in a minor key, tonic first.
    public var minor: [Double]

    /// Creates a profile from its 12 + 12 weights.
    public init(name: String, major: [Double], minor: [Double]) {
        self.name = name
        self.major = major
        self.minor = minor
    }

    /// Probe-tone ratings of C. L. Krumhansl, *Cognitive Foundations of Musical Pitch*
    /// (Oxford University Press, 1990), ch. 2 (Krumhansl & Kessler 1982).
    public static let krumhansl = KeyProfile(
        name: "krumhansl",
        major: [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88],
        minor: [6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17])

    /// D. Temperley, "What's key for key? The Krumhansl-Schmuckler key-finding algorithm
    /// reconsidered", Music Perception 17(1), 1999, sec. 5 (revised profiles).
    public static let temperley = KeyProfile(
        name: "temperley",
        major: [5.0, 2.0, 3.5, 2.0, 4.5, 4.0, 2.0, 4.5, 2.0, 3.5, 1.5, 4.0],
        minor: [5.0, 2.0, 3.5, 4.5, 2.0, 4.0, 2.0, 4.5, 3.5, 2.0, 1.5, 4.0])

    /// Profiles estimated from chroma of an electronic dance music corpus: Á. Faraldo, E. Gómez,
    /// S. Jordà, P. Herrera, "Key estimation in electronic dance music", ECIR 2016 ("edma").
    public static let edma = KeyProfile(
        name: "edma",
        major: [
            0.16519551, 0.04749026, 0.08293076, 0.06687112, 0.09994645, 0.09274123,
            0.05294487, 0.13159476, 0.05218986, 0.07443653, 0.06940723, 0.0642515,
        ],
        minor: [
            0.17235348, 0.05336489, 0.0761009, 0.10043649, 0.05621498, 0.08527853,
            0.0497915, 0.13451001, 0.07458916, 0.05003023, 0.09187879, 0.05545106,
        ])

    /// Profiles learnt from audio of Bach's *Well-Tempered Clavier*: K. Noland and M. Sandler,
    /// "Signal processing parameters for tonality estimation", AES 122nd Convention, 2007.
    public static let noland = KeyProfile(
        name: "noland",
        major: [0.0629, 0.0146, 0.061, 0.0121, 0.0623, 0.0414, 0.0248, 0.0631, 0.015, 0.0521, 0.0142, 0.0478],
        minor: [0.0682, 0.0138, 0.0543, 0.0519, 0.0234, 0.0544, 0.0176, 0.067, 0.0349, 0.0297, 0.0401, 0.027])

    /// Pitch-class distributions (note durations) of the Essen folksong collection: B. Aarden,
    /// *Dynamic melodic expectancy*, PhD dissertation, Ohio State University, 2003; the values of
    /// C. Sapp's Humdrum `keycor` ("aarden"). Of the published profiles it has the sharpest mode
    /// contrast: the minor third weighs 16.9 in minor and 0.16 in major.
    public static let aarden = KeyProfile(
        name: "aarden",
        major: [17.7661, 0.145624, 14.9265, 0.160186, 19.8049, 11.3587, 0.291248, 22.062, 0.145624, 8.15494, 0.232998, 4.95122],
        minor: [18.2648, 0.737619, 14.0499, 16.8599, 0.702494, 14.4362, 0.702494, 18.6161, 4.56621, 1.93186, 7.37619, 1.75623])

    /// Every built-in profile.
    public static let all: [KeyProfile] = [.krumhansl, .temperley, .edma, .noland, .aarden]

    /// The profile adapted to polyphonic audio after Gómez (2006, sec. 4.2): each scale degree's
    /// weight is given to the notes of the chord built on it (major: I, IV, V major triads and,
    /// unless `threeChords`, ii, iii, vi minor triads and the vii° triad; minor: i and iv minor,
    /// V major and, unless `threeChords`, ii°, III+, VI major and vii° triads), and each note
    /// contributes to the pitch classes of its first `harmonics` harmonics with weights
    /// `slope^(h-1)`.
    public func polyphonic(threeChords: Bool = true, harmonics: Int = 4, slope: Double = 0.6) -> KeyProfile {
        func addNote(_ pc: Int, _ w: Double, _ into: inout [Double]) {
            for h in 1...max(1, harmonics) {
                let shift = Int((12 * log2(Double(h))).rounded())
                into[(pc + shift) % 12] += w * pow(slope, Double(h - 1))
            }
        }
        func addChord(_ notes: [Int], _ w: Double, _ into: inout [Double]) {
            for n in notes { addNote(n % 12, w, &into) }
        }
        var M = [Double](repeating: 0, count: 12), m = [Double](repeating: 0, count: 12)
        addChord([0, 4, 7], major[0], &M)
        addChord([5, 9, 12], major[5], &M)
        addChord([7, 11, 14], major[7], &M)
        if !threeChords {
            addChord([2, 5, 9], major[2], &M)
            addChord([4, 7, 11], major[4], &M)
            addChord([9, 12, 16], major[9], &M)
            addChord([11, 14, 17], major[11], &M)
        }
        addChord([0, 3, 7], minor[0], &m)
        addChord([5, 8, 12], minor[5], &m)
        addChord([7, 11, 14], minor[7], &m)
        if !threeChords {
            addChord([2, 5, 8], minor[2], &m)
            addChord([3, 7, 11], minor[3], &m)
            addChord([8, 12, 15], minor[8], &m)
            addChord([11, 14, 17], minor[11], &m)
        }
        return KeyProfile(name: name + (threeChords ? "-poly3" : "-poly"), major: M, minor: m)
    }

    /// Zero-mean, unit-norm rotations: `table[mode * 12 + tonic][pitchClass]`, mode 0 = major.
    func correlationTable() -> [[Double]] {
        var rows: [[Double]] = []
        for profile in [major, minor] {
            let mean = profile.reduce(0, +) / 12
            let centred = profile.map { $0 - mean }
            let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
            let unit = centred.map { norm > 0 ? $0 / norm : 0 }
            for tonic in 0..<12 {
                rows.append((0..<12).map { pc in unit[((pc - tonic) % 12 + 12) % 12] })
            }
        }
        return rows
    }
}
