-- Which process is running a batch run ("<host>:<pid>", the server or an `icstudio eval`), while it
-- runs; null when no process is. The run page tells a live run from one a crash left "running".
ALTER TABLE "Run" ADD COLUMN "owner" TEXT;
