"""Writing git histories for the tests that compare fgbisect's history walks
with git's (tests/sh/hotfiles_methods.sh): each commit a minute after the one
before, by a fixed identity, so that the histories are the same on every
run."""
import os
import subprocess


def committer(repo, start=1700000000, step=60):
    """A git(*args) that runs git in repo, each call dated step seconds after
    the previous one, and fails on a non-zero exit."""
    t = [start]

    def git(*args):
        t[0] += step
        date = "@%d +0000" % t[0]
        env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        subprocess.run(["git", "-c", "user.name=r", "-c", "user.email=r@e"] + list(args), cwd=repo, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return git
