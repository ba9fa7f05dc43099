-- Why: tmux layout snapshots are kept per tmux server (host "tmux:" followed by the server's socket name in tmux's own socket directory, or its socket path elsewhere), so a second server's save never replaces the first one's; the single snapshot kept before under host "tmux" moves to the default server's key.
UPDATE host_layouts SET host = 'tmux:default' WHERE host = 'tmux' AND NOT EXISTS (SELECT 1 FROM host_layouts WHERE host = 'tmux:default');
DELETE FROM host_layouts WHERE host = 'tmux';
