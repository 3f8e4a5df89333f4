const response = await fetch(`http://localhost:3000/v1/jobs/${process.env.JOB_ID}/redeliver`, {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}` },
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.json());
