import MusicUnderstanding
print("cadenza")
