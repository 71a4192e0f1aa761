"""What the tracer's end-to-end checks read from a trace file, in one place: the file, its call
names, and its events by rank and by call (the checks themselves are inline Python in the scripts;
lib.sh puts this directory on PYTHONPATH)."""
import h5py


class Trace:
    def __init__(self, path):
        self.file = h5py.File(path, "r")
        self.names = self.file.attrs["call_names"].decode().split("\n")
        self.events = self.file["/events"][:]
        self.offset = self.file["/ranks/offset"][:]
        self.count = self.file["/ranks/count"][:]

    def id(self, name):
        """The call's number in the `call` column of /events."""
        return self.names.index(name)

    def rank(self, r):
        """One rank's events, in the order it committed them."""
        return self.events[self.offset[r]:self.offset[r] + self.count[r]]

    def calls(self, name, events=None):
        """The events of one call: of every rank, or of `events`."""
        events = self.events if events is None else events
        return events[events["call"] == self.id(name)]
