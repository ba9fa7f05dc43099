-- Why: a take rebuilds the line from the armed argv (validated, posture decided again, the program trusted again); the stored quoted text was never needed and no API may hand it back, so it is no longer kept.
ALTER TABLE armed DROP COLUMN line;
