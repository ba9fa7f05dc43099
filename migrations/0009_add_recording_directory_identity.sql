-- Why: a recorded directory replaced at the same name (a symbolic link put in its place, removed and made again) must not be resumed into: each recording keeps what its directory was, and restore resumes only into that same directory.
ALTER TABLE agent_sessions ADD COLUMN dir_canonical BLOB;  -- the canonical path, raw bytes; NULL with the two below: no identity known
ALTER TABLE agent_sessions ADD COLUMN dir_volume INTEGER;  -- the filesystem id (statvfs f_fsid, else st_dev), as a two's-complement i64
ALTER TABLE agent_sessions ADD COLUMN dir_inode INTEGER;   -- the inode number, as a two's-complement i64
